package fg_test

import (
	"strings"
	"testing"

	fg "github.com/fg-infer/fg"
)

// TestAPIErrorsNameGoCalls: errors of the Go API's overrides name the
// calls (Set, SetData, AddMethod), not fg run's flags.
func TestAPIErrorsNameGoCalls(t *testing.T) {
	m, err := fg.Load("examples/toy5.fg")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{m.Set("nope", "1"), `Set("nope", …): the model has no param ` + "`nope`"},
		{m.Set("eps", "1 +"), `Set("eps", "1 +"): `},
		{m.SetData("X", "x.csv"), `SetData("X", …): the model has no csv data item`},
		{m.AddMethod("ep {"), "AddMethod:1:5: expected `}`"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) || strings.Contains(c.err.Error(), "--") {
			t.Errorf("error %v, want one containing %q and no flag", c.err, c.want)
		}
	}
	_, err = fg.LoadWith("examples/toy5.fg", fg.Overrides{Set: map[string]string{"nope": "1"}})
	if err == nil || !strings.Contains(err.Error(), `Set("nope", …)`) {
		t.Errorf("LoadWith: %v", err)
	}
}
