// References from Go's standard library, as the control plane's components use it, one mode per test:
//
// -mode time (test/checks/date-time-go.test.ts): time.Parse(time.RFC3339, s), which is how
// metav1.Time reads every timestamp of an object. One line per input, "ok" or "err <message>".
//
// -mode url (test/checks/url-go.test.ts): net/url.Parse, and Karmada's checks on top of it for
// the four URL fields fleetgate validates (karmada-parity.md):
//
//	apiEndpoint  Cluster spec.apiEndpoint: parses, has a host, no user info, query or fragment
//	proxyURL     Cluster spec.proxyURL: parses, scheme http, https or socks5
//	webhookURL   interpreter webhook clientConfig.url (Kubernetes ValidateWebhookURL, https forced)
//	address      ResourceRegistry backendStore addresses: parses, scheme http or https, a host
//
// One line per input with five verdicts, tab-separated: the parse ("ok <scheme> <host>" or
// "err <message>"), then "ok" or "err <reason>" for each field.
//
// Input: one JSON string per line.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"
)

func karmadaEndpoint(u *url.URL) string {
	switch {
	case u.Host == "":
		return "host must be provided"
	case u.User != nil:
		return "user information is not permitted in the URL"
	case len(u.Fragment) != 0:
		return "fragments are not permitted in the URL"
	case len(u.RawQuery) != 0:
		return "query parameters are not permitted in the URL"
	}
	return ""
}

func verdicts(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		e := "err " + strings.ReplaceAll(err.Error(), "\t", " ")
		return []string{e, e, e, e, e}
	}
	out := []string{fmt.Sprintf("ok %s %s", u.Scheme, u.Host)}
	verdict := func(problem string) string {
		if problem == "" {
			return "ok"
		}
		return "err " + problem
	}
	out = append(out, verdict(karmadaEndpoint(u)))
	proxy := ""
	if u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "socks5" {
		proxy = "unsupported scheme"
	}
	out = append(out, verdict(proxy))
	webhook := ""
	if u.Scheme != "https" {
		webhook = "'https' is the only allowed URL scheme"
	} else {
		webhook = karmadaEndpoint(u)
	}
	out = append(out, verdict(webhook))
	address := ""
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		address = "must be a valid http or https URL with non-empty scheme and host"
	}
	out = append(out, verdict(address))
	return out
}

func timeVerdict(raw string) string {
	if _, err := time.Parse(time.RFC3339, raw); err != nil {
		return "err " + err.Error()
	}
	return "ok"
}

func main() {
	mode := flag.String("mode", "url", "url or time")
	flag.Parse()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		var raw string
		if err := json.Unmarshal(in.Bytes(), &raw); err != nil {
			fmt.Fprintf(out, "err input is not a JSON string\n")
			continue
		}
		line := timeVerdict(raw)
		if *mode == "url" {
			line = strings.Join(verdicts(raw), "\t")
		}
		fmt.Fprintln(out, strings.ReplaceAll(line, "\n", " "))
	}
}
