package compile

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestDataOverrideErrors: a --data override that cannot be read is reported
// at the csv declaration it replaces, naming the flag; an unknown name is
// an error on the file that lists the csv data items.
func TestDataOverrideErrors(t *testing.T) {
	fsys := fstest.MapFS{
		"m.fg":  {Data: []byte("data X = csv(\"x.csv\", exclude = [\"label\"])\ndata y: spin[2] = csv(\"x.csv\", column = \"label\")\n")},
		"x.csv": {Data: []byte("a,b,label\n1,2,1\n3,4,-1\n")},
	}
	for _, c := range []struct {
		data map[string]string
		want string
	}{
		{map[string]string{"y": "nope.csv"}, "m.fg:2:19: --data y=nope.csv: csv nope.csv: file not found"},
		{map[string]string{"Yy": "x.csv"}, "m.fg: --data Yy: the model has no csv data item `Yy`; did you mean `y`? (csv data items: `X`, `y`)"},
	} {
		_, err := CompileFile("m.fg", Options{FS: fsys, Data: c.data})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %s", c.data, err, c.want)
		}
	}
}
