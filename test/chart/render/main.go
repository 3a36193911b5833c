// Command render renders a Helm chart the way `helm template` does, for machines without helm:
// Go text/template + sprig + the helm built-ins the fleetgate chart uses (include, tpl, required,
// toYaml, fromYaml, toJson, fromJson, fromJsonArray, lookup → empty, .Files.Get, .Capabilities).
//
// It builds in GOPATH mode against Debian's packages (golang-go, golang-github-masterminds-sprig-dev,
// golang-github-ghodss-yaml-dev, the last one pulling golang-gopkg-yaml.v2-dev):
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o render ./test/chart/render
//
// Usage:
//
//	render --chart DIR [-f values.yaml ...] [--name N] [--namespace NS] [--strict]
//	       [--release-service S] [--show-only templates/x.yaml] [--dump-values FILE] [--notes]
//
// Values are loaded like helm does (sigs.k8s.io/yaml semantics via ghodss/yaml: numbers are
// float64, keys strings), later -f files override earlier ones, null deletes a default.
// --strict renders with missingkey=error, as `helm lint --strict` does.
// Output: the non-empty documents in helm's install order, each under `# Source:`.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/ioutil"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"github.com/ghodss/yaml"
)

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// Chart mirrors helm's chart.Metadata: templates see .Chart.Name, .Chart.Version, ...
type Chart struct {
	Name         string            `json:"name"`
	Home         string            `json:"home,omitempty"`
	Sources      []string          `json:"sources,omitempty"`
	Version      string            `json:"version"`
	Description  string            `json:"description,omitempty"`
	Keywords     []string          `json:"keywords,omitempty"`
	Icon         string            `json:"icon,omitempty"`
	APIVersion   string            `json:"apiVersion"`
	AppVersion   string            `json:"appVersion,omitempty"`
	KubeVersion  string            `json:"kubeVersion,omitempty"`
	Type         string            `json:"type,omitempty"`
	Deprecated   bool              `json:"deprecated,omitempty"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	Maintainers  []interface{}     `json:"maintainers,omitempty"`
	Dependencies []interface{}     `json:"dependencies,omitempty"`
}

// Files mirrors helm's engine.files for .Files.Get / .Files.GetBytes.
type Files map[string][]byte

func (f Files) Get(name string) string      { return string(f[name]) }
func (f Files) GetBytes(name string) []byte { return f[name] }

type VersionSet []string

func (v VersionSet) Has(apiVersion string) bool {
	for _, x := range v {
		if x == apiVersion {
			return true
		}
	}
	return false
}

type KubeVersion struct{ Version, Major, Minor string }

func (k KubeVersion) String() string     { return k.Version }
func (k KubeVersion) GitVersion() string { return k.Version }

type Capabilities struct {
	APIVersions VersionSet
	KubeVersion KubeVersion
	HelmVersion map[string]string
}

func readYAMLMap(file string) (map[string]interface{}, error) {
	data, err := ioutil.ReadFile(file)
	if err != nil {
		return nil, err
	}
	m := map[string]interface{}{}
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return m, nil
}

// coalesce merges override into base as helm does for user values: maps merge recursively,
// anything else replaces, and null removes the key.
func coalesce(base, override map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range override {
		if v == nil {
			delete(out, k)
			continue
		}
		bm, bok := out[k].(map[string]interface{})
		om, ook := v.(map[string]interface{})
		if bok && ook {
			out[k] = coalesce(bm, om)
		} else {
			out[k] = v
		}
	}
	return out
}

func toYAML(v interface{}) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

func fromYAML(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func toJSON(v interface{}) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(data)
}

func fromJSON(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromJSONArray(s string) []interface{} {
	a := []interface{}{}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

func required(msg string, val interface{}) (interface{}, error) {
	if val == nil {
		return val, errors.New(msg)
	}
	if s, ok := val.(string); ok && s == "" {
		return val, errors.New(msg)
	}
	return val, nil
}

// helm 3's install order (pkg/releaseutil/kind_sorter.go); unknown kinds (webhook configurations,
// cert-manager's) go last, by kind name. Only the output order depends on it.
var installOrder = []string{"PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange",
	"PodSecurityPolicy", "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap",
	"StorageClass", "PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole",
	"ClusterRoleList", "ClusterRoleBinding", "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding",
	"RoleBindingList", "Service", "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
	"HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress", "APIService"}

var (
	docSep = regexp.MustCompile(`(?:^|\s*\n)---\s*`)
	kindRe = regexp.MustCompile(`(?m)^kind:\s*["']?([A-Za-z0-9]+)`)
)

type doc struct {
	source, body, kind string
	seq                int
}

func rank(kind string) int {
	for i, k := range installOrder {
		if k == kind {
			return i
		}
	}
	return len(installOrder)
}

func main() {
	var valueFiles, showOnly multi
	chartDir := flag.String("chart", "", "chart directory")
	name := flag.String("name", "fleetgate", "release name")
	namespace := flag.String("namespace", "default", "release namespace")
	service := flag.String("release-service", "Helm", ".Release.Service")
	strict := flag.Bool("strict", false, "missingkey=error (helm lint --strict)")
	dumpValues := flag.String("dump-values", "", "write the coalesced values as JSON to this file")
	notes := flag.Bool("notes", false, "print the rendered NOTES.txt after the manifests")
	kubeVersion := flag.String("kube-version", "v1.31.0", ".Capabilities.KubeVersion")
	var apiVersions multi
	flag.Var(&valueFiles, "f", "values file (repeatable)")
	flag.Var(&showOnly, "show-only", "only this template (repeatable), e.g. templates/deployment.yaml")
	flag.Var(&apiVersions, "api-versions", "extra .Capabilities.APIVersions (repeatable)")
	flag.Parse()
	if err := run(*chartDir, *name, *namespace, *service, *strict, *dumpValues, *notes, *kubeVersion,
		valueFiles, showOnly, apiVersions); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

func run(chartDir, name, namespace, service string, strict bool, dumpValues string, notes bool,
	kubeVersion string, valueFiles, showOnly, apiVersions []string) error {
	if chartDir == "" {
		return errors.New("--chart is required")
	}
	var meta Chart
	raw, err := ioutil.ReadFile(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		return err
	}
	if err := yaml.Unmarshal(raw, &meta); err != nil {
		return fmt.Errorf("Chart.yaml: %v", err)
	}
	values, err := readYAMLMap(filepath.Join(chartDir, "values.yaml"))
	if err != nil {
		return err
	}
	for _, f := range valueFiles {
		over, err := readYAMLMap(f)
		if err != nil {
			return err
		}
		values = coalesce(values, over)
	}
	if dumpValues != "" {
		data, _ := json.MarshalIndent(values, "", "  ")
		if err := ioutil.WriteFile(dumpValues, data, 0o644); err != nil {
			return err
		}
	}

	files := Files{}
	templates := map[string]string{}
	err = filepath.Walk(chartDir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(chartDir, p)
		rel = filepath.ToSlash(rel)
		if info.IsDir() {
			if rel == "charts" {
				return filepath.SkipDir
			}
			return nil
		}
		data, err := ioutil.ReadFile(p)
		if err != nil {
			return err
		}
		switch {
		case strings.HasPrefix(rel, "templates/"):
			templates[path.Join(meta.Name, rel)] = string(data)
		case rel == "Chart.yaml" || rel == "values.yaml" || rel == "values.schema.json" || rel == ".helmignore":
		default:
			files[rel] = data
		}
		return nil
	})
	if err != nil {
		return err
	}

	major, minor := "1", "31"
	if parts := strings.SplitN(strings.TrimPrefix(kubeVersion, "v"), ".", 3); len(parts) >= 2 {
		major, minor = parts[0], parts[1]
	}
	caps := Capabilities{
		APIVersions: append(VersionSet{"v1", "apps/v1", "policy/v1", "rbac.authorization.k8s.io/v1",
			"admissionregistration.k8s.io/v1", "networking.k8s.io/v1", "batch/v1"}, apiVersions...),
		KubeVersion: KubeVersion{Version: kubeVersion, Major: major, Minor: minor},
		HelmVersion: map[string]string{"Version": "v3.16.0"},
	}
	top := map[string]interface{}{
		"Values": values,
		"Chart":  meta,
		"Files":  files,
		"Release": map[string]interface{}{
			"Name": name, "Namespace": namespace, "Service": service,
			"IsInstall": true, "IsUpgrade": false, "Revision": 1,
		},
		"Capabilities": caps,
	}

	t := template.New("gotpl")
	if strict {
		t.Option("missingkey=error")
	} else {
		t.Option("missingkey=zero")
	}
	funcs := sprig.TxtFuncMap()
	delete(funcs, "env")
	delete(funcs, "expandenv")
	includedNames := map[string]int{}
	funcs["include"] = func(name string, data interface{}) (string, error) {
		if includedNames[name] > 1000 {
			return "", fmt.Errorf("rendering template has a nested reference name: %s", name)
		}
		includedNames[name]++
		defer func() { includedNames[name]-- }()
		var buf bytes.Buffer
		if err := t.ExecuteTemplate(&buf, name, data); err != nil {
			return "", err
		}
		return buf.String(), nil
	}
	funcs["tpl"] = func(text string, data interface{}) (string, error) {
		c, err := t.Clone()
		if err != nil {
			return "", err
		}
		if _, err := c.New("tpl").Parse(text); err != nil {
			return "", err
		}
		var buf bytes.Buffer
		if err := c.ExecuteTemplate(&buf, "tpl", data); err != nil {
			return "", err
		}
		return strings.Replace(buf.String(), "<no value>", "", -1), nil
	}
	funcs["required"] = required
	funcs["toYaml"] = toYAML
	funcs["fromYaml"] = fromYAML
	funcs["toJson"] = toJSON
	funcs["fromJson"] = fromJSON
	funcs["fromJsonArray"] = fromJSONArray
	// `helm template` and dry runs have no cluster: lookup always finds nothing.
	funcs["lookup"] = func(apiVersion, kind, namespace, name string) (map[string]interface{}, error) {
		return map[string]interface{}{}, nil
	}
	t.Funcs(funcs)

	names := make([]string, 0, len(templates))
	for n := range templates {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, err := t.New(n).Parse(templates[n]); err != nil {
			return err
		}
	}

	wanted := func(n string) bool {
		if len(showOnly) == 0 {
			return true
		}
		for _, s := range showOnly {
			if path.Join(meta.Name, s) == n {
				return true
			}
		}
		return false
	}
	var docs []doc
	var notesText string
	for _, n := range names {
		if strings.HasPrefix(path.Base(n), "_") {
			continue
		}
		vals := map[string]interface{}{}
		for k, v := range top {
			vals[k] = v
		}
		vals["Template"] = map[string]interface{}{"Name": n, "BasePath": path.Join(meta.Name, "templates")}
		var buf bytes.Buffer
		if err := t.ExecuteTemplate(&buf, n, vals); err != nil {
			return err
		}
		out := strings.Replace(buf.String(), "<no value>", "", -1)
		if path.Base(n) == "NOTES.txt" {
			notesText = out
			continue
		}
		if !wanted(n) {
			continue
		}
		for _, body := range docSep.Split(out, -1) {
			if strings.TrimSpace(body) == "" {
				continue
			}
			kind := ""
			if m := kindRe.FindStringSubmatch(body); m != nil {
				kind = m[1]
			}
			docs = append(docs, doc{source: n, body: strings.TrimSpace(body), kind: kind, seq: len(docs)})
		}
	}
	sort.SliceStable(docs, func(i, j int) bool {
		ri, rj := rank(docs[i].kind), rank(docs[j].kind)
		if ri != rj {
			return ri < rj
		}
		if ri == len(installOrder) && docs[i].kind != docs[j].kind {
			return docs[i].kind < docs[j].kind
		}
		return docs[i].seq < docs[j].seq
	})
	var w bytes.Buffer
	for _, d := range docs {
		fmt.Fprintf(&w, "---\n# Source: %s\n%s\n", d.source, d.body)
	}
	if notes {
		fmt.Fprintf(&w, "\nNOTES:\n%s\n", notesText)
	}
	_, err = os.Stdout.Write(w.Bytes())
	return err
}
