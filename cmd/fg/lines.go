package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fg-infer/fg/internal/safefile"
)

// lineReader is where the REPL reads its lines from: a line editor
// (readline: history, completion, Ctrl-C) on a terminal, plainLines on
// any other input.
type lineReader interface {
	Readline() (string, error)
	SetPrompt(prompt string)
	Close() error
}

// errLongLine is returned by plainLines for a line of more than
// safefile.MaxModel bytes (the bound on one model's source); the line is
// skipped.
var errLongLine = fmt.Errorf("line of more than %d MiB skipped: fg reads at most %d MiB of fg source", safefile.MaxModel>>20, safefile.MaxModel>>20)

// plainLines reads non-terminal input (a pipe, a file) as plain lines,
// without a line editor: every byte but the newline — Tab, Ctrl-R, Ctrl-S,
// Ctrl-Z, NUL — is text for the parser to accept or reject, and a line
// costs time linear in its length. It prints no prompt.
type plainLines struct {
	r   *bufio.Reader
	max int
}

func newPlainLines(r io.Reader) *plainLines {
	return &plainLines{r: bufio.NewReader(r), max: safefile.MaxModel}
}

// Readline returns the next line without its "\n" or "\r\n"; io.EOF at the
// end of the input (a last line without a newline is returned first), and
// errLongLine, having skipped the line, when it has more than max bytes.
func (p *plainLines) Readline() (string, error) {
	var b strings.Builder
	long := false
	for {
		chunk, err := p.r.ReadSlice('\n')
		if !long && b.Len()+len(chunk) > p.max+2 { // +2: the "\r\n" is not counted
			long = true
			b.Reset()
		}
		if !long {
			b.Write(chunk)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && (long || b.Len() == 0):
			if long {
				return "", errLongLine
			}
			return "", err
		case long:
			return "", errLongLine
		}
		line := strings.TrimSuffix(b.String(), "\n")
		return strings.TrimSuffix(line, "\r"), nil
	}
}

func (p *plainLines) SetPrompt(string) {}
func (p *plainLines) Close() error     { return nil }
