// Values as `helm install` assembles them: the -f files merged in order, then the --set
// assignments, then coalesced with the chart's values.yaml (a key the user sets to null is
// removed); then validated against values.schema.json.
package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/xeipuuv/gojsonschema"
)

type Values = map[string]interface{}

// mergeMaps: b into a, maps merged deeply, anything else replaced (helm's -f files).
func mergeMaps(a, b Values) Values {
	out := make(Values, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if vm, ok := v.(Values); ok {
			if am, ok := out[k].(Values); ok {
				out[k] = mergeMaps(am, vm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// coalesce fills the user's values from the chart's defaults.
func coalesce(user, defaults Values) Values {
	for key, def := range defaults {
		value, set := user[key]
		switch {
		case !set:
			user[key] = copyValue(def)
		case value == nil:
			delete(user, key)
		default:
			um, userIsMap := value.(Values)
			dm, defIsMap := def.(Values)
			if userIsMap && defIsMap {
				coalesce(um, dm)
			} else if userIsMap != defIsMap && def != nil {
				warnf("coalesce.go: warning: skipped value for %s: Not a table.", key)
			}
		}
	}
	return user
}

func copyValue(v interface{}) interface{} {
	switch t := v.(type) {
	case Values:
		out := make(Values, len(t))
		for k, e := range t {
			out[k] = copyValue(e)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(t))
		for i, e := range t {
			out[i] = copyValue(e)
		}
		return out
	}
	return v
}

// splitUnescaped splits s at sep outside braces, dropping the backslash of "\<sep>".
func splitUnescaped(s string, sep rune) []string {
	var parts []string
	var cur strings.Builder
	depth := 0
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			if r != sep {
				cur.WriteRune('\\')
			}
			cur.WriteRune(r)
			escaped = false
		case r == '\\':
			escaped = true
		case r == '{':
			depth++
			cur.WriteRune(r)
		case r == '}':
			depth--
			cur.WriteRune(r)
		case r == sep && depth == 0:
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	return append(parts, cur.String())
}

// typedValue types a --set value as helm's strvals does: true/false and null (any case),
// integers not starting with 0, else a string.
func typedValue(s string) interface{} {
	switch {
	case strings.EqualFold(s, "true"):
		return true
	case strings.EqualFold(s, "false"):
		return false
	case strings.EqualFold(s, "null"):
		return nil
	case s == "0":
		return int64(0)
	}
	if len(s) > 0 && s[0] != '0' {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
	}
	return s
}

// applySet applies "a.b=v,c={x,y}" to values (list indexes a[0] are not supported).
func applySet(values Values, assignments string) error {
	for _, assignment := range splitUnescaped(assignments, ',') {
		eq := strings.IndexRune(assignment, '=')
		if eq < 0 {
			return fmt.Errorf("key %q has no value", assignment)
		}
		keys := splitUnescaped(assignment[:eq], '.')
		raw := assignment[eq+1:]
		var value interface{} = typedValue(raw)
		if strings.HasPrefix(raw, "{") && strings.HasSuffix(raw, "}") {
			list := []interface{}{}
			for _, item := range splitUnescaped(raw[1:len(raw)-1], ',') {
				list = append(list, typedValue(item))
			}
			value = list
		}
		node := values
		for _, key := range keys[:len(keys)-1] {
			if strings.ContainsAny(key, "[]") {
				return fmt.Errorf("--set %s: list indexes are not supported by this renderer", assignment)
			}
			next, ok := node[key].(Values)
			if !ok {
				next = Values{}
				node[key] = next
			}
			node = next
		}
		node[keys[len(keys)-1]] = value
	}
	return nil
}

// schemaErrors checks values against the chart's JSON schema: "- field: problem" lines, or nil.
func schemaErrors(chart *Chart, values Values) error {
	if chart.Schema == nil {
		return nil
	}
	document, err := json.Marshal(values)
	if err != nil {
		return err
	}
	result, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(chart.Schema),
		gojsonschema.NewBytesLoader(document))
	if err != nil {
		return fmt.Errorf("values.schema.json: %w", err)
	}
	if result.Valid() {
		return nil
	}
	var sb strings.Builder
	for _, e := range result.Errors() {
		sb.WriteString(fmt.Sprintf("- %s\n", e))
	}
	return fmt.Errorf("%s", sb.String())
}

// validateValues: schemaErrors in the words of helm install and helm template.
func validateValues(chart *Chart, values Values) error {
	if err := schemaErrors(chart, values); err != nil {
		return fmt.Errorf("values don't meet the specifications of the schema(s) in the following chart(s):\n%s:\n%s",
			chart.Metadata.Name, err)
	}
	return nil
}
