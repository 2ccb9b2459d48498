package parser

import "github.com/alecthomas/participle/v2/lexer"

// The participle grammar. These types are private to the package and are
// turned into lang/ast nodes in lower.go only; they carry no behaviour.
// Token fields (lexer.Token) record the delimiters whose positions the AST
// keeps. EOL tokens reaching the grammar have already been filtered (see
// filter.go): they only separate statements, block items and options.

type gFile struct {
	Stmts []*gStmt `parser:"(@@ (EOL @@)*)? EOL?"`
}

type gStmt struct {
	Model   *gModel   `parser:"  @@"`
	Import  *gImport  `parser:"| @@"`
	Data    *gData    `parser:"| @@"`
	Param   *gParam   `parser:"| @@"`
	Latent  *gLatent  `parser:"| @@"`
	Factor  *gFactor  `parser:"| @@"`
	For     *gFor     `parser:"| @@"`
	Infer   *gInfer   `parser:"| @@"`
	Predict *gPredict `parser:"| @@"`
	Expect  *gExpect  `parser:"| @@"`
	Learn   *gLearn   `parser:"| @@"`
	Tilde   *gTilde   `parser:"| @@"`
}

type gIdent struct {
	Pos  lexer.Position
	Name string `parser:"@Ident"`
}

type gModel struct {
	Kw   lexer.Token `parser:"@\"model\""`
	Name *gIdent     `parser:"@@"`
}

type gImport struct {
	Kw   lexer.Token `parser:"@\"import\""`
	Path lexer.Token `parser:"@String"`
}

type gData struct {
	Kw    lexer.Token `parser:"@\"data\""`
	Name  *gIdent     `parser:"@@"`
	Type  *gType      `parser:"(\":\" @@)?"`
	Value *gExpr      `parser:"\"=\" @@"`
}

type gParam struct {
	Kw    lexer.Token `parser:"@\"param\""`
	Name  *gIdent     `parser:"@@"`
	Value *gExpr      `parser:"\"=\" @@"`
}

type gLatent struct {
	Kw    lexer.Token `parser:"@\"latent\""`
	Name  *gIdent     `parser:"@@"`
	Type  *gType      `parser:"\":\" @@"`
	Prior *gExpr      `parser:"(\"~\" @@)?"`
}

type gType struct {
	Base   *gIdent     `parser:"@@"`
	CatK   *gExpr      `parser:"(\"(\" @@"`
	Rparen lexer.Token `parser:"@\")\")?"`
	Lbrack lexer.Token `parser:"(@\"[\""`
	Dims   []*gExpr    `parser:"@@ (\",\" @@)*"`
	Rbrack lexer.Token `parser:"@\"]\")?"`
}

type gFactor struct {
	Kw   lexer.Token `parser:"@\"factor\""`
	Call *gExpr      `parser:"@@"`
}

type gFor struct {
	Kw    lexer.Token `parser:"@\"for\""`
	Var   *gIdent     `parser:"( @@"`
	Tuple *gTuple     `parser:"| @@ )"`
	Iter  *gIter      `parser:"\"in\" @@"`
	Body  *gBlock     `parser:"@@"`
}

type gTuple struct {
	Vars []*gIdent `parser:"\"(\" @@ (\",\" @@)* \")\""`
}

type gIter struct {
	Lo    *gExpr      `parser:"@@"`
	Range lexer.Token `parser:"(@\"..\""`
	Hi    *gExpr      `parser:"@@)?"`
}

type gBlock struct {
	Lbrace lexer.Token `parser:"@\"{\""`
	Stmts  []*gStmt    `parser:"(@@ (EOL @@)*)?"`
	Rbrace lexer.Token `parser:"@\"}\""`
}

type gInfer struct {
	Kw      lexer.Token `parser:"@\"infer\""`
	Method  *gIdent     `parser:"@@"`
	Label   *gIdent     `parser:"(\"as\" @@)?"`
	Options *gOptions   `parser:"@@?"`
}

type gOptions struct {
	Lbrace lexer.Token `parser:"@\"{\""`
	Items  []*gOption  `parser:"(@@ ((\",\" | EOL) @@)* \",\"?)?"`
	Rbrace lexer.Token `parser:"@\"}\""`
}

type gOption struct {
	Key   *gIdent `parser:"@@ \"=\""`
	Value *gExpr  `parser:"@@"`
}

type gPredict struct {
	Kw    lexer.Token `parser:"@\"predict\""`
	Name  *gIdent     `parser:"@@"`
	Value *gExpr      `parser:"\"=\" @@"`
}

type gExpect struct {
	Kw    lexer.Token `parser:"@\"expect\""`
	X     *gExpr      `parser:"@@"`
	Label *gIdent     `parser:"(\"for\" @@)?"`
}

type gLearn struct {
	Kw      lexer.Token   `parser:"@\"learn\""`
	Items   []*gLearnItem `parser:"@@ (\",\" @@)*"`
	By      *gIdent       `parser:"(\"by\" @@)?"`
	Options *gOptions     `parser:"@@?"`
}

type gLearnItem struct {
	Name   *gIdent     `parser:"@@"`
	Lo     *gExpr      `parser:"(\"in\" \"[\" @@"`
	Hi     *gExpr      `parser:"\",\" @@"`
	Rbrack lexer.Token `parser:"@\"]\")?"`
}

type gTilde struct {
	LHS   *gExpr      `parser:"@@"`
	Tilde lexer.Token `parser:"@\"~\""`
	Dist  *gExpr      `parser:"@@"`
}

// Expressions, one type per precedence level, loosest first:
// or, and, not, comparison, + -, * / @, unary -, ^, postfix, primary.

type gExpr struct {
	Left *gAnd      `parser:"@@"`
	Rest []*gOrTail `parser:"@@*"`
}

type gOrTail struct {
	Op    lexer.Token `parser:"@\"or\""`
	Right *gAnd       `parser:"@@"`
}

type gAnd struct {
	Left *gNot       `parser:"@@"`
	Rest []*gAndTail `parser:"@@*"`
}

type gAndTail struct {
	Op    lexer.Token `parser:"@\"and\""`
	Right *gNot       `parser:"@@"`
}

type gNot struct {
	Nots []*gNotOp `parser:"@@*"`
	X    *gCmp     `parser:"@@"`
}

type gCmp struct {
	Left *gSum       `parser:"@@"`
	Rest []*gCmpTail `parser:"@@*"`
}

type gCmpTail struct {
	Op    lexer.Token `parser:"@(\"==\" | \"!=\" | \"<=\" | \">=\" | \"<\" | \">\")"`
	Right *gSum       `parser:"@@"`
}

type gSum struct {
	Left *gTerm      `parser:"@@"`
	Rest []*gSumTail `parser:"@@*"`
}

type gSumTail struct {
	Op    lexer.Token `parser:"@(\"+\" | \"-\")"`
	Right *gTerm      `parser:"@@"`
}

type gTerm struct {
	Left *gUnary      `parser:"@@"`
	Rest []*gTermTail `parser:"@@*"`
}

type gTermTail struct {
	Op    lexer.Token `parser:"@(\"*\" | \"/\" | \"@\")"`
	Right *gUnary     `parser:"@@"`
}

// gNotOp and gNegOp are single prefix operators. (A []lexer.Token field
// captures only the first of repeated tokens, hence the wrappers.)
type gNotOp struct {
	Op lexer.Token `parser:"@\"not\""`
}

type gNegOp struct {
	Op lexer.Token `parser:"@\"-\""`
}

type gUnary struct {
	Negs []*gNegOp `parser:"@@*"`
	X    *gPower   `parser:"@@"`
}

type gPower struct {
	Base *gPostfix   `parser:"@@"`
	Op   lexer.Token `parser:"(@\"^\""`
	Exp  *gUnary     `parser:"@@)?"`
}

type gPostfix struct {
	X   *gPrimary `parser:"@@"`
	Ops []*gPost  `parser:"@@*"`
}

type gPost struct {
	Call  *gCall  `parser:"  @@"`
	Index *gIndex `parser:"| @@"`
	Sel   *gIdent `parser:"| \".\" @@"`
}

type gCall struct {
	Lparen lexer.Token `parser:"@\"(\""`
	Args   []*gArg     `parser:"(@@ (\",\" @@)* \",\"?)?"`
	Rparen lexer.Token `parser:"@\")\""`
}

type gArg struct {
	Named *gNamedArg `parser:"  @@"`
	X     *gExpr     `parser:"| @@"`
}

type gNamedArg struct {
	Name  *gIdent `parser:"@@ \"=\""`
	Value *gExpr  `parser:"@@"`
}

type gIndex struct {
	Lbrack lexer.Token   `parser:"@\"[\""`
	Items  []*gIndexItem `parser:"@@ (\",\" @@)*"`
	Rbrack lexer.Token   `parser:"@\"]\""`
}

type gIndexItem struct {
	Lo    *gExpr      `parser:"@@?"`
	Colon lexer.Token `parser:"(@\":\""`
	Hi    *gExpr      `parser:"@@?)?"`
}

type gPrimary struct {
	Number *lexer.Token `parser:"  @Number"`
	String *lexer.Token `parser:"| @String"`
	Bool   *lexer.Token `parser:"| @(\"true\" | \"false\")"`
	Ident  *gIdent      `parser:"| @@"`
	List   *gList       `parser:"| @@"`
	Paren  *gParen      `parser:"| @@"`
}

type gList struct {
	Lbrack lexer.Token `parser:"@\"[\""`
	Elems  []*gExpr    `parser:"(@@ (\",\" @@)* \",\"?)?"`
	Rbrack lexer.Token `parser:"@\"]\""`
}

type gParen struct {
	Lparen lexer.Token `parser:"@\"(\""`
	X      *gExpr      `parser:"@@"`
	Rparen lexer.Token `parser:"@\")\""`
}
