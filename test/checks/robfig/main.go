// The reference for test/checks/cron-robfig.test.ts: robfig/cron v3's standard parser (Debian's
// golang-github-robfig-cron-dev), given each schedule the way the CronFederatedHPA controller's
// gocron v1 hands it over: prefixed with "CRON_TZ=<zone> " unless it carries its own TZ= prefix.
//
// Input: one JSON string per line. Output: one line per input, "ok" or "err <robfig's message>".
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/robfig/cron"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		var schedule string
		if err := json.Unmarshal(in.Bytes(), &schedule); err != nil {
			fmt.Fprintf(out, "err input is not a JSON string: %v\n", err)
			continue
		}
		spec := schedule
		if !strings.HasPrefix(spec, "TZ=") && !strings.HasPrefix(spec, "CRON_TZ=") {
			spec = "CRON_TZ=UTC " + spec
		}
		if _, err := cron.ParseStandard(spec); err != nil {
			fmt.Fprintf(out, "err %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		} else {
			fmt.Fprintln(out, "ok")
		}
	}
}
