// Package ast declares the syntax tree of fg model files: sealed Expr and
// Stmt node interfaces with positions on every node, Walk, and the printer
// behind `fg fmt`.
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

// File is a parsed model file.
type File struct {
	Filename string
	Stmts    []Stmt
	Start    Pos
	Finish   Pos
}

// Pos returns the start of the file.
func (f *File) Pos() Pos { return f.Start }

// End returns the end of the file.
func (f *File) End() Pos { return f.Finish }
