// Package ast declares the syntax tree of fg model files: sealed Expr and
// Stmt node interfaces with positions on every node, Walk, and the printer
// behind `fg fmt`.
//
// Every node records the positions of the tokens it needs to compute an
// exact span [Pos(), End()) — keywords, brackets, operators — so that
// diagnostics can underline exactly the offending text (lang/diag).
//
// Positions are go/token's: a Pos is one word, an offset into a FileSet
// (a file's base plus a byte offset; NoPos is unknown), cheap enough for
// every node and every compiled variable, factor and site to carry. The
// FileSet holds each file's name and line table and resolves a Pos to a
// Position (file, offset, line, column) where it is printed. It is passed
// explicitly — parser.ParseFile adds the file to the caller's set, and
// compile keeps the set in Model.Fset — never global. Errors (Error,
// ErrorList) hold resolved Positions, so that an error value is complete
// without the set it came from.
//
// Statement nodes (stmt.go) mirror the statements of docs/language-decisions.md;
// expression nodes (expr.go) keep the literal text of numbers and strings
// and the user's parentheses (ParenExpr), so printing is faithful.
//
// Comments are not attached to nodes: File.Comments holds them all with
// positions and Format re-attaches them (leading, trailing, inside blocks,
// multi-line calls and matrices) by comparing positions, as go/printer does.
// ExprString prints an expression on one line, adding the parentheses that
// precedence requires for hand-built trees (Op.Precedence).
package ast

// Node is any syntax tree node.
type Node interface {
	Pos() Pos // first character of the node
	End() Pos // first character after the node
}

// Expr is an expression node.
type Expr interface {
	Node
	exprNode()
}

// Stmt is a statement node.
type Stmt interface {
	Node
	stmtNode()
}

// File is a parsed model file. Comments holds every comment of the file in
// source order; the printer re-attaches them to statements by position (a
// comment on the line where a statement ends trails it, others lead the next
// statement, option or closing brace).
type File struct {
	Filename string
	Stmts    []Stmt
	Comments []*Comment
	Start    Pos
	Finish   Pos
}

// Comment is one `// ...` or `# ...` comment; Text includes the marker and
// excludes the newline.
type Comment struct {
	Slash Pos
	Text  string
}

// Pos returns the position of the comment marker.
func (c *Comment) Pos() Pos { return c.Slash }

// End returns the position after the comment text.
func (c *Comment) End() Pos { return c.Slash.Advance(len(c.Text)) }

// Pos returns the start of the file.
func (f *File) Pos() Pos { return f.Start }

// End returns the end of the file.
func (f *File) End() Pos { return f.Finish }
