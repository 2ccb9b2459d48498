package graph

import (
	"bytes"
	"io"
	"strconv"
	"unsafe"

	"github.com/fg-infer/fg/lang/ast"
)

// scanBuf is the libDAI scanner's buffer: the longest token it reads.
const scanBuf = 1 << 20

// scanner reads the whitespace-separated tokens of a libDAI file from a
// buffer it refills, so that memory follows the graph being built, not the
// file's text, and a token costs no allocation: it is a view of the
// buffer, valid until the next call. Text from '#' to the end of a line is
// a comment; a UTF-8 byte order mark at the start is skipped (columns count
// after it).
type scanner struct {
	r        io.Reader
	file     *ast.SourceFile
	buf      []byte
	pos, end int
	off      int64 // file offset of buf[0]
	line     int   // line of buf[pos]
	lineOff  int64 // file offset of that line's first byte
	eof      bool
	err      error // a read error (an *ast.Error)
	tok      []byte
	tokLine  int
	tokCol   int
	tokOff   int64
	tokValid bool // a token was read (positions of end-of-file errors)
	peeked   bool
	comment  bool // inside a comment that went on past the buffer
}

func newScanner(r io.Reader, file *ast.SourceFile) *scanner {
	s := &scanner{r: r, file: file, buf: make([]byte, scanBuf), line: 1}
	s.fill()
	if bytes.HasPrefix(s.buf[s.pos:s.end], []byte("\uFEFF")) {
		s.pos += 3
		s.lineOff = 3
	}
	file.AddLine(int(s.lineOff), 1)
	return s
}

// fill moves the unread bytes to the front of the buffer and reads more;
// it reports whether any byte was added.
func (s *scanner) fill() bool {
	if s.eof {
		return false
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.off += int64(s.pos)
		s.pos, s.end = 0, n
	}
	for s.end < len(s.buf) {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err == io.EOF {
			s.eof = true
			return n > 0
		}
		if err != nil {
			s.eof = true
			s.err = &ast.Error{Pos: ast.Position{Filename: s.file.Name(), Offset: int(s.lineOff), Line: s.line, Column: 1}, Msg: "libdai: " + err.Error()}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	return false
}

// next reads the next token into s.tok; it is false at the end of the
// input, on a read error (s.err) or on a token longer than the buffer.
func (s *scanner) next() bool {
	if s.peeked {
		s.peeked = false
		return true
	}
	for {
		// skip white space and comments
		if s.comment {
			if i := bytes.IndexByte(s.buf[s.pos:s.end], '\n'); i >= 0 {
				s.pos += i
				s.comment = false
			} else {
				s.pos = s.end
			}
		}
		for s.pos < s.end {
			c := s.buf[s.pos]
			switch {
			case c == '\n':
				s.pos++
				s.line++
				s.lineOff = s.off + int64(s.pos)
				continue
			case isSpace(c):
				s.pos++
				continue
			case c == '#':
				if i := bytes.IndexByte(s.buf[s.pos:s.end], '\n'); i >= 0 {
					s.pos += i
				} else {
					s.pos, s.comment = s.end, true // the comment goes on past the buffer
				}
				continue
			}
			break
		}
		if s.pos == s.end {
			if !s.fill() {
				return false
			}
			continue
		}
		// a token: up to white space, a comment or the end of the input
		i := s.pos
		for i < s.end && !isSpace(s.buf[i]) && s.buf[i] != '\n' && s.buf[i] != '#' {
			i++
		}
		if i == s.end && !s.eof {
			if s.pos == 0 && s.end == len(s.buf) { // the buffer holds one token and no end
				s.tokLine, s.tokCol, s.tokOff = s.line, int(s.off+int64(s.pos)-s.lineOff)+1, s.off+int64(s.pos)
				s.err = &ast.Error{Pos: s.tokPosition(), Msg: "libdai: a token of more than 1 MiB"}
				return false
			}
			s.fill()
			continue
		}
		s.tok = s.buf[s.pos:i]
		s.tokLine, s.tokCol, s.tokOff = s.line, int(s.off+int64(s.pos)-s.lineOff)+1, s.off+int64(s.pos)
		s.tokValid = true
		s.pos = i
		return true
	}
}

// peek reads the next token without consuming it.
func (s *scanner) peek() bool {
	if s.peeked {
		return true
	}
	ok := s.next()
	s.peeked = ok
	return ok
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// tokPosition is the position of the last token read.
func (s *scanner) tokPosition() ast.Position {
	return ast.Position{Filename: s.file.Name(), Offset: int(s.tokOff), Line: s.tokLine, Column: s.tokCol}
}

// eofPosition is the position just after the last token.
func (s *scanner) eofPosition() ast.Position {
	if !s.tokValid {
		return ast.Position{Filename: s.file.Name(), Line: 1, Column: 1}
	}
	p := s.tokPosition()
	p.Offset += len(s.tok)
	p.Column += len(s.tok)
	return p
}

// atoi parses the token as a decimal integer: digits alone without a
// conversion, anything else (a sign, an overflow) by strconv.
func atoi(tok []byte) (int, bool) {
	if len(tok) > 0 && len(tok) <= 18 {
		v := 0
		for _, c := range tok {
			if c < '0' || c > '9' {
				goto slow
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
slow:
	v, err := strconv.Atoi(string(tok))
	return v, err == nil
}

// atof parses the token as a float64 (strconv's syntax and rounding) over
// the buffer, without copying it.
func atof(tok []byte) (float64, bool) {
	if len(tok) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(unsafe.String(&tok[0], len(tok)), 64)
	return v, err == nil
}
