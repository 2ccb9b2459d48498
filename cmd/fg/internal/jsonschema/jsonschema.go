// Package jsonschema validates decoded JSON against the subset of JSON
// Schema (draft 2020-12) used by docs/result.schema.json: type (a name or a
// list of names), enum, minimum, properties, required,
// additionalProperties (false or a schema), items, oneOf and local $ref
// ("#/$defs/NAME"). It exists so tests can check real `fg run --json`
// output against the documented schema without a third-party module.
package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Schema is a decoded schema document.
type Schema struct {
	root map[string]any
}

// Parse decodes a schema.
func Parse(data []byte) (*Schema, error) {
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return &Schema{root: root}, nil
}

// ValidateJSON decodes data (numbers kept exact) and validates it; it returns
// every violation with its JSON path.
func (s *Schema) ValidateJSON(data []byte) []error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return []error{fmt.Errorf("invalid JSON: %w", err)}
	}
	var errs []error
	s.validate(s.root, v, "$", &errs)
	return errs
}

func (s *Schema) validate(sch map[string]any, v any, path string, errs *[]error) {
	if ref, ok := sch["$ref"].(string); ok {
		target, err := s.resolve(ref)
		if err != nil {
			*errs = append(*errs, fmt.Errorf("%s: %v", path, err))
			return
		}
		s.validate(target, v, path, errs)
	}
	if !s.checkType(sch, v, path, errs) {
		return
	}
	s.checkEnum(sch, v, path, errs)
	s.checkMinimum(sch, v, path, errs)
	s.checkOneOf(sch, v, path, errs)
	switch x := v.(type) {
	case map[string]any:
		s.checkObject(sch, x, path, errs)
	case []any:
		if items, ok := sch["items"].(map[string]any); ok {
			for i, e := range x {
				s.validate(items, e, fmt.Sprintf("%s[%d]", path, i), errs)
			}
		}
	}
}

func (s *Schema) resolve(ref string) (map[string]any, error) {
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		return nil, fmt.Errorf("unsupported $ref %q", ref)
	}
	defs, _ := s.root["$defs"].(map[string]any)
	d, ok := defs[name].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("unknown $ref %q", ref)
	}
	return d, nil
}

// typeOf names the JSON type of a decoded value; whole numbers are "integer".
func typeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func (s *Schema) checkType(sch map[string]any, v any, path string, errs *[]error) bool {
	t, ok := sch["type"]
	if !ok {
		return true
	}
	var allowed []string
	switch x := t.(type) {
	case string:
		allowed = []string{x}
	case []any:
		for _, e := range x {
			allowed = append(allowed, fmt.Sprint(e))
		}
	}
	got := typeOf(v)
	for _, a := range allowed {
		if a == got || (a == "number" && got == "integer") {
			return true
		}
	}
	*errs = append(*errs, fmt.Errorf("%s: type %s, want %s", path, got, strings.Join(allowed, " or ")))
	return false
}

func (s *Schema) checkEnum(sch map[string]any, v any, path string, errs *[]error) {
	enum, ok := sch["enum"].([]any)
	if !ok {
		return
	}
	for _, e := range enum {
		if fmt.Sprint(e) == fmt.Sprint(v) {
			return
		}
	}
	*errs = append(*errs, fmt.Errorf("%s: %v not in %v", path, v, enum))
}

func (s *Schema) checkMinimum(sch map[string]any, v any, path string, errs *[]error) {
	m, ok := sch["minimum"].(float64)
	n, isNum := v.(json.Number)
	if !ok || !isNum {
		return
	}
	if f, err := n.Float64(); err != nil || f < m || math.IsNaN(f) {
		*errs = append(*errs, fmt.Errorf("%s: %v below minimum %v", path, v, m))
	}
}

func (s *Schema) checkOneOf(sch map[string]any, v any, path string, errs *[]error) {
	alts, ok := sch["oneOf"].([]any)
	if !ok {
		return
	}
	matches := 0
	for _, a := range alts {
		var sub []error
		if m, ok := a.(map[string]any); ok {
			s.validate(m, v, path, &sub)
		}
		if len(sub) == 0 {
			matches++
		}
	}
	if matches != 1 {
		*errs = append(*errs, fmt.Errorf("%s: matches %d of oneOf's %d alternatives, want exactly 1", path, matches, len(alts)))
	}
}

func (s *Schema) checkObject(sch map[string]any, obj map[string]any, path string, errs *[]error) {
	props, _ := sch["properties"].(map[string]any)
	if req, ok := sch["required"].([]any); ok {
		for _, r := range req {
			if _, ok := obj[fmt.Sprint(r)]; !ok {
				*errs = append(*errs, fmt.Errorf("%s: missing required %q", path, r))
			}
		}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := path + "." + k
		if ps, ok := props[k].(map[string]any); ok {
			s.validate(ps, obj[k], p, errs)
			continue
		}
		switch ap := sch["additionalProperties"].(type) {
		case bool:
			if !ap {
				*errs = append(*errs, fmt.Errorf("%s: property not allowed", p))
			}
		case map[string]any:
			s.validate(ap, obj[k], p, errs)
		}
	}
}
