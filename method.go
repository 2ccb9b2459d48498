package fg

import (
	"bytes"
	"fmt"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/lang/parser"
)

// MethodFile is the file name positions of --method specs refer to.
const MethodFile = "--method"

// withMethods appends one `infer SPEC` line per extra method to an fg
// source, after checking that each spec parses as exactly one infer
// statement (errors point into the spec, file "--method"). The compiler
// then labels the extra lines like any other infer line.
func withMethods(src []byte, methods []string) ([]byte, error) {
	if len(methods) == 0 {
		return src, nil
	}
	if compile.IsLibDAI(src) {
		return nil, libdaiMethodError()
	}
	var b bytes.Buffer
	b.Write(src)
	for _, spec := range methods {
		line := "infer " + spec
		if err := checkMethod(line); err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "\n%s\n", line)
	}
	return b.Bytes(), nil
}

// checkMethod parses `infer SPEC` on its own.
func checkMethod(line string) error {
	stmts, err := parser.ParseStmt(MethodFile, []byte(line))
	if err != nil {
		return err
	}
	if len(stmts) != 1 {
		return methodError("--method takes one infer line, e.g. --method 'ep { divergence = alpha(0.8) }'")
	}
	if _, ok := stmts[0].(*ast.InferStmt); !ok {
		return methodError("--method takes an inference method, e.g. ep, bp, exact, mcmc")
	}
	return nil
}

func methodError(msg string) error {
	p := ast.Pos{Filename: MethodFile, Line: 1, Column: 1}
	return ast.ErrorList{{Pos: p, End: p, Msg: msg}}
}

func libdaiMethodError() error {
	return methodError("libDAI files take their methods from compile")
}
