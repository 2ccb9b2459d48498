package present

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"github.com/fg-infer/fg/infer"
)

// WeightsHeader is the header row of `fg run --weights FILE`.
var WeightsHeader = "label,name,index,mean,var"

// WriteWeights writes the streamed weights (infer.Variable.Streamed: the
// weights of a libsvm plate) of every result as CSV, one row per element —
// the model file of a libsvm run, as liblinear's and Vowpal Wabbit's
// readable model are theirs, here with each weight's posterior mean and
// variance. Non-finite values are empty cells. It returns the number of
// variables written (0: the results hold no streamed weights).
func WriteWeights(w io.Writer, rs []*infer.Result) (int, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(WeightsHeader + "\n")
	n := 0
	var line []byte
	for _, r := range rs {
		for _, v := range r.Variables.All() {
			if !v.Streamed || v.Discrete {
				continue
			}
			n++
			head := csvField(r.Label) + "," + v.Name + ","
			for i, m := range v.Mean {
				line = append(line[:0], head...)
				line = strconv.AppendInt(line, int64(i), 10)
				line = append(append(line, ','), cell(m)...)
				line = append(append(line, ','), cell(at(v.Var, i))...)
				bw.Write(append(line, '\n'))
			}
		}
	}
	return n, bw.Flush()
}

// csvField quotes s as encoding/csv would when it holds a comma, a quote,
// a line break or leading space (a label such as "ep { damping = 0.5, … }").
func csvField(s string) string {
	if s == "" || !strings.ContainsAny(s, ",\"\r\n") && s[0] != ' ' && s[0] != '\t' {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
