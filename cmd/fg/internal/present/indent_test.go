package present

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestIndentJSON(t *testing.T) {
	src := `{"a":[1,2,null],"b":{},"c":[],"d":[[1,2],[3]],"e":"x,[{\"]}:","f":[{"g":true}],"h":["p,q","r"]}`
	var b bytes.Buffer
	indentJSON(&b, []byte(src))
	want := `{
  "a": [1, 2, null],
  "b": {},
  "c": [],
  "d": [
    [1, 2],
    [3]
  ],
  "e": "x,[{\"]}:",
  "f": [
    {
      "g": true
    }
  ],
  "h": ["p,q", "r"]
}
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	// Same value as the input.
	var x, y any
	json.Unmarshal([]byte(src), &x)
	json.Unmarshal(b.Bytes(), &y)
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	if !bytes.Equal(xs, ys) {
		t.Errorf("value changed: %s vs %s", xs, ys)
	}
}
