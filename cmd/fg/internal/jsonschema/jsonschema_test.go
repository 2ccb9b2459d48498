package jsonschema

import "testing"

const testSchema = `{
  "type": "object", "required": ["a"], "additionalProperties": false,
  "properties": {
    "a": {"type": "integer", "minimum": 0},
    "b": {"type": ["number", "null"]},
    "c": {"type": "array", "items": {"$ref": "#/$defs/s"}},
    "d": {"oneOf": [{"type": "null"}, {"type": "object", "additionalProperties": {"type": "string"}}]},
    "e": {"enum": ["x", "y"]}
  },
  "$defs": {"s": {"type": "string"}}
}`

func TestValidator(t *testing.T) {
	s, err := Parse([]byte(testSchema))
	if err != nil {
		t.Fatal(err)
	}
	good := []string{
		`{"a": 0}`, `{"a": 3, "b": null}`, `{"a": 1, "b": 1.5, "c": ["p", "q"], "d": {"k": "v"}, "e": "y"}`,
		`{"a": 1, "d": null}`,
	}
	for _, g := range good {
		if errs := s.ValidateJSON([]byte(g)); len(errs) != 0 {
			t.Errorf("%s: unexpected errors %v", g, errs)
		}
	}
	bad := []string{
		`{}`, `{"a": -1}`, `{"a": 1.5}`, `{"a": 1, "z": 1}`, `{"a": 1, "b": "s"}`,
		`{"a": 1, "c": [1]}`, `{"a": 1, "d": {"k": 1}}`, `{"a": 1, "e": "z"}`, `{"a": NaN}`,
	}
	for _, b := range bad {
		if errs := s.ValidateJSON([]byte(b)); len(errs) == 0 {
			t.Errorf("%s: accepted, want a violation", b)
		}
	}
}
