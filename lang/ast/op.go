package ast

// Op is a unary or binary operator.
type Op int

// Operators, listed loosest-binding first (see Precedence).
const (
	OpInvalid Op = iota
	OpOr         // or
	OpAnd        // and
	OpNot        // not (unary)
	OpEq         // ==
	OpNe         // !=
	OpLt         // <
	OpLe         // <=
	OpGt         // >
	OpGe         // >=
	OpAdd        // +
	OpSub        // -
	OpMul        // *
	OpDiv        // /
	OpMatMul     // @
	OpNeg        // - (unary)
	OpPow        // ^
)

var opText = [...]string{
	OpInvalid: "<invalid op>",
	OpOr:      "or",
	OpAnd:     "and",
	OpNot:     "not",
	OpEq:      "==",
	OpNe:      "!=",
	OpLt:      "<",
	OpLe:      "<=",
	OpGt:      ">",
	OpGe:      ">=",
	OpAdd:     "+",
	OpSub:     "-",
	OpMul:     "*",
	OpDiv:     "/",
	OpMatMul:  "@",
	OpNeg:     "-",
	OpPow:     "^",
}

// String returns the operator as written in source.
func (op Op) String() string {
	if op < 0 || int(op) >= len(opText) {
		return opText[OpInvalid]
	}
	return opText[op]
}

// Precedence returns the binding strength of op, 1 (or) to 8 (^); higher
// binds tighter. The levels are those of docs/language-decisions.md:
//
//	or < and < not < comparisons (non-associative) < + - < * / @ < unary - < ^
//
// `^` is right-associative and binds tighter than unary minus: -x^2 = -(x^2).
func (op Op) Precedence() int {
	switch op {
	case OpOr:
		return 1
	case OpAnd:
		return 2
	case OpNot:
		return 3
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
		return 4
	case OpAdd, OpSub:
		return 5
	case OpMul, OpDiv, OpMatMul:
		return 6
	case OpNeg:
		return 7
	case OpPow:
		return 8
	}
	return 0
}

// IsComparison reports whether op is one of == != < <= > >=.
func (op Op) IsComparison() bool { return op.Precedence() == 4 }

// BinaryOp returns the binary operator written s, or OpInvalid.
func BinaryOp(s string) Op {
	for op := OpOr; op <= OpPow; op++ {
		if op != OpNot && op != OpNeg && opText[op] == s {
			return op
		}
	}
	return OpInvalid
}
