package parser_test

import (
	"fmt"
	"os"

	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/lang/diag"
	"github.com/fg-infer/fg/lang/parser"
)

func ExampleParseFile() {
	src := []byte(`model toy
latent w: real[2]~normal(0,1)   // prior
for i in 0..5 { y[i] ~ step(dot(X[i], w), eps) }
infer ep { divergence = alpha(0.8) }
infer ep { divergence = relaxed_kl(c = 20),
  damping = 0.5 }
`)
	fset := ast.NewFileSet()
	f, err := parser.ParseFile(fset, "toy.fg", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(ast.Format(fset, f)))
	// Output:
	// model toy
	// latent w: real[2] ~ normal(0, 1) // prior
	// for i in 0..5 {
	//   y[i] ~ step(dot(X[i], w), eps)
	// }
	// infer ep { divergence = alpha(0.8) }
	// infer ep {
	//   divergence = relaxed_kl(c = 20)
	//   damping = 0.5
	// }
}

func ExampleParseExpr() {
	x, err := parser.ParseExpr("-x^2+1 < y and not b")
	if err != nil {
		fmt.Println(err)
		return
	}
	b := x.(*ast.BinaryExpr)
	fmt.Println(ast.ExprString(x))
	fmt.Println(b.Op, "|", ast.ExprString(b.X), "|", ast.ExprString(b.Y))
	// Output:
	// -x^2 + 1 < y and not b
	// and | -x^2 + 1 < y | not b
}

func ExampleParseFile_errors() {
	src := []byte("model m\nparam a =\nx ~ normal(0, 1))\n")
	_, err := parser.ParseFile(ast.NewFileSet(), "m.fg", src)
	diag.Render(os.Stdout, err, func(string) ([]byte, bool) { return src, true })
	// Output:
	// m.fg:2:10: error: unexpected end of line; expected an expression
	//   2 | param a =
	//     |          ^
	// m.fg:3:17: error: unexpected `)`
	//   3 | x ~ normal(0, 1))
	//     |                 ^
}

func ExampleIncomplete() {
	for _, s := range []string{"for i in 0..5 {", "x ~ f(a,", "param a = b +", "param a = 1"} {
		fmt.Printf("%-16q %v\n", s, parser.Incomplete([]byte(s)))
	}
	// Output:
	// "for i in 0..5 {" true
	// "x ~ f(a,"       true
	// "param a = b +"  true
	// "param a = 1"    false
}
