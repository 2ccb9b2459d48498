package compile

import (
	"errors"
	"strings"
	"testing"

	"github.com/fg-infer/fg/lang/ast"
)

// complete26 is a libDAI file of binary pairwise factors on the complete
// graph K₂₆ (treewidth 25: every elimination order has a clique table of
// 2²⁶ entries, over infer.MaxCliqueTable), kept in the bad-input corpus.
const complete26 = "../cmd/fg/testdata/badinput/libdai_exact_default_complete26/complete26.fg"

// TestLibDAIDefaultExactChecked: a libDAI file's default `infer exact`
// line is checked at compile time, like a written one: on K₂₆ the clique
// bound refuses it at the file's first line (fg check fails, nothing runs),
// while --only bp and --method lines (which replace the default lines)
// compile; a file within the budget keeps both default lines.
func TestLibDAIDefaultExactChecked(t *testing.T) {
	_, err := CompileLibDAI(complete26, Options{})
	var el ast.ErrorList
	if !errors.As(err, &el) || len(el) != 1 || el[0].Pos.Line != 1 || el[0].Pos.Column != 1 ||
		!strings.Contains(el[0].Msg, "infer exact (a default line of a libDAI file): the interaction graph has treewidth ≥ 25") {
		t.Fatalf("K26 default exact: %v", err)
	}
	m, err := CompileLibDAI(complete26, Options{Only: []string{"bp"}})
	if err != nil || len(m.Infers) != 2 {
		t.Errorf("--only bp: %v", err)
	}
	m, err = CompileLibDAI(complete26, Options{MethodsReplaceDefaults: true})
	if err != nil || len(m.Infers) != 0 {
		t.Errorf("--method lines: %v", err)
	}
	m, err = compileLibDAISource("small.fg", []byte("1\n\n2\n0 1\n2 2\n4\n0 1\n1 2\n2 2\n3 1\n"), Options{})
	if err != nil || len(m.Infers) != 2 {
		t.Errorf("small file: %v", err)
	}
}
