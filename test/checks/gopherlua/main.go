// The reference for test/checks/lua-gopher.test.ts: gopher-lua's LState.LoadString, which parses
// and compiles a chunk without running it, as Karmada's webhook checks interpreter scripts
// (Debian's golang-github-yuin-gopher-lua-dev).
//
// Input: one JSON string per line. Output: one line per input, "ok" or "err <gopher-lua's message>".
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<22), 1<<22)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	for in.Scan() {
		var script string
		if err := json.Unmarshal(in.Bytes(), &script); err != nil {
			fmt.Fprintln(out, "err input is not a JSON string")
			continue
		}
		if _, err := L.LoadString(script); err != nil {
			fmt.Fprintf(out, "err %s\n", strings.Join(strings.Fields(err.Error()), " "))
		} else {
			fmt.Fprintln(out, "ok")
		}
	}
}
