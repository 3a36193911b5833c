// The reference for test/checks/ip-sloppy.test.ts: ParseIPSloppy of k8s.io/utils/net (Debian's
// golang-k8s-utils-dev), with which Kubernetes validates IP addresses in objects: Go's ParseIP
// before Go 1.17, leading zeros allowed.
//
// Input: one JSON string per line. Output: one line per input, "ok" or "err".
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	netutils "k8s.io/utils/net"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		var value string
		if err := json.Unmarshal(in.Bytes(), &value); err != nil || netutils.ParseIPSloppy(value) == nil {
			fmt.Fprintln(out, "err")
		} else {
			fmt.Fprintln(out, "ok")
		}
	}
}
