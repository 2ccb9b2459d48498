package ast

func (p *printer) stmt(s Stmt) {
	switch s := s.(type) {
	case *ModelStmt:
		p.write("model " + s.Name.Name)
	case *ImportStmt:
		p.write("import ")
		p.expr(s.Path)
	case *DataStmt:
		p.write("data " + s.Name.Name)
		p.optType(s.Type)
		p.write(" = ")
		p.expr(s.Value)
	case *ParamStmt:
		p.write("param " + s.Name.Name + " = ")
		p.expr(s.Value)
	case *LatentStmt:
		p.write("latent " + s.Name.Name)
		p.optType(s.Type)
		if s.Prior != nil {
			p.write(" ~ ")
			p.expr(s.Prior)
		}
	case *TildeStmt:
		p.expr(s.LHS)
		p.write(" ~ ")
		p.expr(s.Dist)
	case *FactorStmt:
		p.write("factor ")
		p.expr(s.Call)
	default:
		p.stmt2(s)
	}
}

func (p *printer) stmt2(s Stmt) {
	switch s := s.(type) {
	case *ForStmt:
		p.forStmt(s)
	case *InferStmt:
		p.write("infer " + s.Method.Name)
		if s.Label != nil {
			p.write(" as " + s.Label.Name)
		}
		p.options(s.Lbrace, s.Options, s.Rbrace)
	case *PredictStmt:
		p.write("predict " + s.Name.Name + " = ")
		p.expr(s.Value)
	case *ExpectStmt:
		p.write("expect ")
		p.expr(s.X)
		if s.Label != nil {
			p.write(" for " + s.Label.Name)
		}
	case *LearnStmt:
		p.learn(s)
	}
}

func (p *printer) optType(t *TypeExpr) {
	if t == nil {
		return
	}
	p.write(": ")
	p.typ(t)
}

func (p *printer) typ(t *TypeExpr) {
	p.write(t.Base.Name)
	if t.CatK != nil {
		p.write("(")
		p.expr(t.CatK)
		p.write(")")
	}
	if len(t.Dims) > 0 {
		p.write("[")
		p.exprList(t.Dims)
		p.write("]")
	}
}

func (p *printer) forStmt(s *ForStmt) {
	p.write("for ")
	if s.Tuple {
		p.write("(")
	}
	for i, v := range s.Vars {
		if i > 0 {
			p.write(", ")
		}
		p.write(v.Name)
	}
	if s.Tuple {
		p.write(")")
	}
	p.write(" in ")
	p.expr(s.Iter)
	p.write(" ")
	var body func()
	if len(s.Body) > 0 {
		body = func() { p.stmts(s.Body) }
	}
	p.block(s.Lbrace, s.Rbrace, body)
}

func (p *printer) learn(s *LearnStmt) {
	p.write("learn ")
	for i, it := range s.Items {
		if i > 0 {
			p.write(", ")
		}
		p.write(it.Name.Name)
		if it.Lo != nil {
			p.write(" in [")
			p.expr(it.Lo)
			p.write(", ")
			p.expr(it.Hi)
			p.write("]")
		}
	}
	if s.By != nil {
		p.write(" by " + s.By.Name)
	}
	p.options(s.Lbrace, s.Options, s.Rbrace)
}

// options prints ` { ... }` with one option per line, or nothing when the
// statement had no option block. A block the source wrote on one line stays
// on one line, `{ key = value, key = value }` (as gofmt keeps one-line
// composite literals); a line comment cannot stand inside such a block.
func (p *printer) options(lb Pos, opts []*Option, rb Pos) {
	if !lb.IsValid() && len(opts) == 0 {
		return
	}
	p.write(" ")
	if len(opts) > 0 && lb.IsValid() && rb.IsValid() && p.line(lb) == p.line(rb) {
		p.write("{ ")
		for i, o := range opts {
			if i > 0 {
				p.write(", ")
			}
			p.write(o.Key.Name + " = ")
			p.expr(o.Value)
		}
		p.write(" }")
		return
	}
	var body func()
	if len(opts) > 0 {
		body = func() {
			for i, o := range opts {
				var next Node
				if i+1 < len(opts) {
					next = opts[i+1]
				}
				p.item(o, o.End(), next, func() {
					p.write(o.Key.Name + " = ")
					p.expr(o.Value)
				})
			}
		}
	}
	p.block(lb, rb, body)
}
