// The reference for test/apiserver/apply/smd-reference.test.ts: structured-merge-diff itself
// (Debian's golang-k8s-sigs-structured-merge-diff-dev), run over the same scenarios as
// fleetgate's apply module.
//
// Input: one JSON string per line, each a scenario: {"schema": <SMD schema YAML>, "steps":
// [{"op": "apply"|"update", "manager", "object", "force"}], "fieldsV1": <text>}. Output: one JSON
// line per scenario: each step's conflicts (or whether the object changed), the final object and
// each manager's set as FieldsV1 text; for "fieldsV1", the text read and written back.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"sigs.k8s.io/structured-merge-diff/fieldpath"
	"sigs.k8s.io/structured-merge-diff/merge"
	"sigs.k8s.io/structured-merge-diff/typed"
)

type step struct {
	Op      string          `json:"op"`
	Manager string          `json:"manager"`
	Object  json.RawMessage `json:"object"`
	Force   bool            `json:"force"`
}

type scenario struct {
	Schema   string  `json:"schema"`
	Steps    []step  `json:"steps"`
	FieldsV1 *string `json:"fieldsV1"`
}

type stepResult struct {
	Conflicts []string `json:"conflicts,omitempty"`
	Changed   bool     `json:"changed"`
}

type result struct {
	Steps    []stepResult      `json:"steps,omitempty"`
	Object   interface{}       `json:"object,omitempty"`
	Managers map[string]string `json:"managers,omitempty"`
	FieldsV1 string            `json:"fieldsV1,omitempty"`
	Error    string            `json:"error,omitempty"`
}

type sameVersion struct{}

func (sameVersion) Convert(v *typed.TypedValue, _ fieldpath.APIVersion) (*typed.TypedValue, error) {
	return v, nil
}
func (sameVersion) IsMissingVersionError(error) bool { return false }

// decode reads JSON as Kubernetes does for unstructured objects: integers as int64, other numbers as float64.
func decode(raw []byte) (interface{}, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v interface{}
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return numbers(v), nil
}

func numbers(v interface{}) interface{} {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case map[string]interface{}:
		for k, x := range t {
			t[k] = numbers(x)
		}
	case []interface{}:
		for i, x := range t {
			t[i] = numbers(x)
		}
	}
	return v
}

func run(s scenario) result {
	if s.FieldsV1 != nil {
		set := fieldpath.NewSet()
		if err := set.FromJSON(strings.NewReader(*s.FieldsV1)); err != nil {
			return result{Error: err.Error()}
		}
		out, err := set.ToJSON()
		if err != nil {
			return result{Error: err.Error()}
		}
		return result{FieldsV1: string(out)}
	}
	parser, err := typed.NewParser(typed.YAMLObject(s.Schema))
	if err != nil {
		return result{Error: err.Error()}
	}
	pt := parser.Type("root")
	updater := merge.Updater{Converter: sameVersion{}}
	live, err := pt.FromUnstructured(map[string]interface{}{})
	if err != nil {
		return result{Error: err.Error()}
	}
	managers := fieldpath.ManagedFields{}
	res := result{}
	for _, st := range s.Steps {
		obj, err := decode(st.Object)
		if err != nil {
			return result{Error: err.Error()}
		}
		tv, err := pt.FromUnstructured(obj)
		if err != nil {
			return result{Error: err.Error()}
		}
		if st.Op == "update" {
			_, managers, err = updater.Update(live, tv, "v1", managers, st.Manager)
			if err != nil {
				return result{Error: err.Error()}
			}
			live = tv
			res.Steps = append(res.Steps, stepResult{Changed: true})
			continue
		}
		next, m, err := updater.Apply(live, tv, "v1", managers, st.Manager, st.Force)
		if conflicts, ok := err.(merge.Conflicts); ok {
			var list []string
			for _, c := range conflicts {
				list = append(list, fmt.Sprintf("%s: %s", c.Manager, c.Path))
			}
			sort.Strings(list)
			res.Steps = append(res.Steps, stepResult{Conflicts: list})
			continue
		}
		if err != nil {
			return result{Error: err.Error()}
		}
		managers = m
		res.Steps = append(res.Steps, stepResult{Changed: next != nil})
		if next != nil {
			live = next
		}
	}
	res.Object = live.AsValue().Unstructured()
	res.Managers = map[string]string{}
	for name, vs := range managers {
		text, err := vs.Set().ToJSON()
		if err != nil {
			return result{Error: err.Error()}
		}
		res.Managers[name] = string(text)
	}
	return res
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<24), 1<<24)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		var text string
		var s scenario
		if err := json.Unmarshal(in.Bytes(), &text); err != nil {
			fmt.Fprintf(out, "{\"error\":%q}\n", err.Error())
			continue
		}
		if err := json.Unmarshal([]byte(text), &s); err != nil {
			fmt.Fprintf(out, "{\"error\":%q}\n", err.Error())
			continue
		}
		line, _ := json.Marshal(run(s))
		fmt.Fprintln(out, string(line))
	}
}
