package present

// jsonWriter is where indentJSON writes: a bytes.Buffer or a bufio.Writer.
type jsonWriter interface {
	Write([]byte) (int, error)
	WriteByte(byte) error
	WriteString(string) (int, error)
}

// indentJSON re-indents compact JSON with two spaces per level like
// json.Indent, except that arrays of scalars stay on one line
// ("mean": [0.1, 0.2, ...]) so long vectors do not take a line per number.
func indentJSON(dst jsonWriter, src []byte) {
	var in indenter
	in.write(dst, src)
	dst.WriteByte('\n')
}

// indenter is indentJSON over a document given in pieces, so that it can
// be written as it is encoded: its state is the depth and the last byte
// of the previous piece. A piece must not end inside a string, a flat
// array or between the brackets of an empty array or object.
type indenter struct {
	depth int
	prev  byte
}

// write indents the next piece of the document.
func (in *indenter) write(dst jsonWriter, src []byte) {
	if len(src) == 0 {
		return
	}
	depth := in.depth
	defer func() { in.depth, in.prev = depth, src[len(src)-1] }()
	before := func(i int) byte {
		if i > 0 {
			return src[i-1]
		}
		return in.prev
	}
	newline := func(d int) {
		dst.WriteByte('\n')
		for i := 0; i < d; i++ {
			dst.WriteString("  ")
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '"':
			j := stringEnd(src, i)
			dst.Write(src[i:j])
			i = j - 1
		case '[', '{':
			if end, ok := flatArray(src, i); ok {
				writeFlat(dst, src[i:end])
				i = end - 1
				continue
			}
			dst.WriteByte(c)
			if i+1 < len(src) && (src[i+1] == ']' || src[i+1] == '}') {
				continue // empty: [] or {}
			}
			depth++
			newline(depth)
		case ']', '}':
			if b := before(i); b == '[' || b == '{' {
				dst.WriteByte(c)
				continue
			}
			depth--
			newline(depth)
			dst.WriteByte(c)
		case ',':
			dst.WriteByte(',')
			newline(depth)
		case ':':
			dst.WriteString(": ")
		default:
			dst.WriteByte(c)
		}
	}
}

// stringEnd returns the index after the string literal starting at i.
func stringEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(src)
}

// flatArray reports whether src[i] opens a non-empty array holding only
// scalars, and where it ends.
func flatArray(src []byte, i int) (int, bool) {
	if src[i] != '[' || i+1 >= len(src) || src[i+1] == ']' {
		return 0, false
	}
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '"':
			j = stringEnd(src, j) - 1
		case '[', '{':
			return 0, false
		case ']':
			return j + 1, true
		}
	}
	return 0, false
}

// writeFlat copies a flat array, with a space after each comma.
func writeFlat(dst jsonWriter, a []byte) {
	for i := 0; i < len(a); i++ {
		if a[i] == '"' {
			j := stringEnd(a, i)
			dst.Write(a[i:j])
			i = j - 1
			continue
		}
		dst.WriteByte(a[i])
		if a[i] == ',' {
			dst.WriteByte(' ')
		}
	}
}
