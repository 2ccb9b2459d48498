package pipeline

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/fg-infer/fg/internal/safefile"
	"github.com/fg-infer/fg/lang/ast"
)

// Data errors — a shard that is not a regular file or is too large, a
// malformed csv, a model that does not compile on a shard — are
// deterministic: resubmitting the job cannot help, and a runner reports a
// failed bundle inside its own pipeline dump. A worker therefore returns
// such an error marked: its text, base64-encoded (which survives any
// quoting a runner applies to error text), between dataMark and dataEnd.
// The driver, finding the mark in a failed job's error, stops at once with
// a *DataError holding the text alone.
const dataMark, dataEnd = "[fg-beam data error ", "]"

// DataError is a data error raised by a worker: Msg names the user's
// files and lines (FILE:LINE:COL: error: ...), one error a line.
type DataError struct{ Msg string }

func (e *DataError) Error() string { return e.Msg }

// dataError marks err as a data error for the driver.
func dataError(err error) error {
	return fmt.Errorf("%s%s%s", dataMark, base64.StdEncoding.EncodeToString([]byte(errorText(err))), dataEnd)
}

// errorText is every error of err, one a line.
func errorText(err error) string {
	var list ast.ErrorList
	if !errors.As(err, &list) {
		return err.Error()
	}
	lines := make([]string, len(list))
	for i, e := range list {
		lines[i] = e.Pos.String() + ": error: " + e.Msg
	}
	return strings.Join(lines, "\n")
}

// findDataError returns the data error marked in a failed job's error, or nil.
func findDataError(err error) *DataError {
	s := err.Error()
	i := strings.Index(s, dataMark)
	if i < 0 {
		return nil
	}
	s = s[i+len(dataMark):]
	j := strings.Index(s, dataEnd)
	if j < 0 {
		return nil
	}
	msg, derr := base64.StdEncoding.DecodeString(s[:j])
	if derr != nil {
		return nil
	}
	return &DataError{Msg: string(msg)}
}

// maxShard bounds one shard as read (safefile.MaxData, fg's bound on a csv file).
const maxShard = safefile.MaxData

// readShard reads a shard on a worker: at most maxShard bytes.
func readShard(ctx context.Context, f fileio.ReadableFile) ([]byte, error) {
	if err := checkShard(f.Metadata.Path, f.Metadata.Size); err != nil {
		return nil, err
	}
	r, err := f.Open(ctx)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return readLimited(r)
}

// checkShard refuses a local shard that is not a regular file (a device
// such as /dev/zero never ends, a FIFO blocks) and a shard of more than
// maxShard bytes, before it is opened.
func checkShard(p string, size int64) error {
	if !strings.Contains(p, "://") {
		f, st, err := safefile.OpenRegular(nil, p) // refused from a stat, before the open
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return err
		}
		f.Close()
		size = st.Size()
	}
	if size > maxShard {
		return fmt.Errorf("%w: fg-beam reads at most %d MiB from one shard", safefile.ErrTooLarge, maxShard>>20)
	}
	return nil
}

// readLimited reads r to its end, failing past maxShard bytes.
func readLimited(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxShard+1))
	if err == nil && len(data) > maxShard {
		err = fmt.Errorf("%w: fg-beam reads at most %d MiB from one shard", safefile.ErrTooLarge, maxShard>>20)
	}
	return data, err
}

// readFile reads p through Beam's file systems, with the checks of
// checkShard for a shard.
func readFile(ctx context.Context, p string, isShard bool) ([]byte, error) {
	fsys, err := filesystem.New(ctx, p)
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	if isShard {
		size, err := fsys.Size(ctx, p)
		if err != nil {
			return nil, err
		}
		if err := checkShard(p, size); err != nil {
			return nil, fmt.Errorf("shard %s: %w", p, err)
		}
	}
	r, err := fsys.OpenRead(ctx, p)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if isShard {
		return readLimited(r)
	}
	return io.ReadAll(r)
}
