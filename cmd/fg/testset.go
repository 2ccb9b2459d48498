package main

import (
	"encoding/csv"
	"fmt"
	"strings"

	"github.com/fg-infer/fg/internal/safefile"
	"github.com/fg-infer/fg/internal/session"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
)

// predictInputs returns the names of the data that the model's predict
// statements take their new inputs from: the second argument of
// predictive(LATENT, DATA). `fg run --test PATH` reads each of them from PATH.
func predictInputs(m *session.Model) ([]string, error) {
	var names []string
	fset := m.Compiled().Fset
	for _, f := range m.Compiled().Files {
		for _, s := range f.Stmts {
			p, ok := s.(*ast.PredictStmt)
			if !ok {
				continue
			}
			call, ok := p.Value.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return nil, fmt.Errorf("%s: --test needs predict statements of the form predictive(LATENT, DATA)", fset.Position(p.Pos()))
			}
			id, ok := call.Args[1].(*ast.Ident)
			if !ok {
				return nil, fmt.Errorf("%s: --test needs the inputs of `predict %s` to be a named data, not %s",
					fset.Position(p.Pos()), p.Name.Name, ast.ExprString(call.Args[1]))
			}
			names = append(names, id.Name)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("--test: the model has no predict statement")
	}
	return names, nil
}

// useTestFile reads every predict input of m from path (fg run --test).
func useTestFile(m *session.Model, path string) error {
	names, err := predictInputs(m)
	if err != nil {
		return err
	}
	for _, n := range names {
		if err := m.SetData(n, path); err != nil {
			return err
		}
	}
	return nil
}

// scoreTest scores every class-probability prediction against the `label`
// column of the test file, when it has one.
func scoreTest(test string, res *session.Results) error {
	has, err := hasColumn(test, "label")
	if err != nil || !has {
		return err
	}
	y, err := stdlib.LoadCSV(nil, test, stdlib.CSVOptions{Column: "label"})
	if err != nil {
		return err
	}
	for _, r := range res.List {
		for i := range r.Predictions {
			r.Predictions[i].Test = r.Predictions[i].Score(y.Data)
		}
	}
	return nil
}

// hasColumn reports whether the csv file's header names the column.
func hasColumn(path, name string) (bool, error) {
	f, err := safefile.Open(nil, path, safefile.MaxData)
	if err != nil {
		return false, fmt.Errorf("--test %s: %v", path, err)
	}
	defer f.Close()
	header, err := csv.NewReader(f).Read()
	if err != nil {
		return false, fmt.Errorf("--test %s: %v", path, err)
	}
	for _, h := range header {
		if strings.TrimSpace(h) == name {
			return true, nil
		}
	}
	return false, nil
}
