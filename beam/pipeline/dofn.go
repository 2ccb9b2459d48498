package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing/fstest"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"gonum.org/v1/gonum/floats"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer/run"
	"github.com/fg-infer/fg/infer/shard"
	"github.com/fg-infer/fg/lang/ast"
)

func init() {
	register.DoFn4x1[context.Context, fileio.ReadableFile, string, func(string), error](&localFn{})
	register.Emitter1[string]()
	register.Combiner3[wireNat, string, string](&sumFn{})
	beam.RegisterType(reflect.TypeOf((*wireNat)(nil)).Elem())
}

// shardName is the path under which a shard's csv content is visible to
// the compiler: every data item in Model.Items reads it.
const shardName = "fg-beam-shard/part.csv"

// Model is what a worker needs to turn a shard's csv into EP sites: the
// model source, the path it was read from (relative csv() and import paths
// resolve against its folder, on the worker's file system), the csv data
// items each shard replaces, and the ep infer line.
type Model struct {
	Src   string   `json:"src"`
	Path  string   `json:"path"`
	Items []string `json:"items"`
	Label string   `json:"label"`
	// Shards is the --shards glob: a csv data item not in Items that reads
	// a file it matches is an error (it would pair every shard with that
	// one file's data).
	Shards string `json:"shards"`
}

// Compile compiles the model with every item in m.Items reading csv
// (nil: the model's own data) and returns its sharded-EP block.
func (m Model) Compile(csv []byte) (*run.ShardBlock, error) {
	return m.CompileShard("", csv)
}

// CompileShard is Compile for the shard at path: errors in the shard's
// csv name path (and its lines) instead of the in-memory file it is
// compiled from.
func (m Model) CompileShard(path string, csv []byte) (*run.ShardBlock, error) {
	abs, err := filepath.Abs(m.Path)
	if err != nil {
		return nil, err
	}
	root := strings.TrimPrefix(filepath.ToSlash(abs), "/")
	opt := compile.Options{FS: overlay{fstest.MapFS{shardName: {Data: csv}}, os.DirFS("/")}}
	if csv != nil {
		opt.Data = map[string]string{}
		for _, it := range m.Items {
			opt.Data[it] = shardName
		}
	}
	cm, err := compile.CompileSource(root, []byte(m.Src), opt)
	if err == nil && csv != nil {
		err = m.unlisted(cm)
	}
	if err != nil {
		return nil, m.userPaths(err, root, path)
	}
	sb, err := run.ShardBlockOf(cm, m.Label)
	if err != nil {
		return nil, err
	}
	return sb, sb.Settings.Defaults()
}

// unlisted refuses a csv data item that is not in m.Items but reads a
// file the --shards glob matches: every shard would be compiled with
// that one file's data for it (X from each shard, y from the first).
func (m Model) unlisted(cm *compile.Model) error {
	if m.Shards == "" || strings.Contains(m.Shards, "://") {
		return nil // a remote glob: csv() reads local files only
	}
	glob, err := filepath.Abs(m.Shards)
	if err != nil {
		return nil
	}
	var list ast.ErrorList
	for item, file := range cm.CSVFiles {
		if slices.Contains(m.Items, item) || path.Clean(file) == shardName {
			continue
		}
		if ok, _ := filepath.Match(glob, "/"+file); ok {
			pos := cm.Fset.Position(cm.Data[item].Pos)
			list.Add(pos, pos, "data item `%s` reads %s, a shard (it matches --shards %s), but is not in --shard_items: every shard would be paired with that one file's %s; add it: --shard_items %s",
				item, "/"+file, m.Shards, item, strings.Join(append(slices.Clone(m.Items), item), ","))
		}
	}
	if len(list) == 0 {
		return nil
	}
	list.Sort()
	return list
}

// userPaths names positions in the model as the user did (m.Path), in the
// shard by its path (shard; left as it is when empty) and on the other
// files by their absolute paths, instead of the compiler's paths relative
// to the root of the overlay.
func (m Model) userPaths(err error, root, shard string) error {
	var list ast.ErrorList
	if !errors.As(err, &list) {
		return err
	}
	for _, e := range list {
		for _, it := range m.Items { // the override is fg-beam's mechanism, not the user's flag
			e.Msg = strings.ReplaceAll(e.Msg, "--data "+it+"="+shardName+": ", "")
		}
		e.Msg = strings.ReplaceAll(e.Msg, shardName, shardOr(shard))
		for _, p := range []*ast.Position{&e.Pos, &e.End} {
			switch {
			case p.Filename == root:
				p.Filename = m.Path
			case path.Clean(p.Filename) == shardName:
				p.Filename = shardOr(shard)
			case p.Filename != "" && !strings.HasPrefix(p.Filename, "fg-beam-shard/"):
				p.Filename = "/" + p.Filename
			}
		}
	}
	return list
}

func shardOr(shard string) string {
	if shard == "" {
		return shardName
	}
	return shard
}

// overlay serves the shard from memory and every other path from the
// worker's file system.
type overlay struct {
	mem  fstest.MapFS
	disk fs.FS
}

func (o overlay) Open(name string) (fs.File, error) {
	if path.Clean(name) == shardName {
		return o.mem.Open(name)
	}
	return o.disk.Open(name)
}

// failHook, when set (tests), is called before a shard's update and its
// error fails the bundle: it injects a failure under the local runner.
var failHook func(path string) error

// localFn is the ParDo per shard: it reads the shard's csv through Beam's
// file IO, compiles the model on it, and runs shard.LocalUpdate against the
// side input's global posterior and the shard's old site.
type localFn struct {
	Model Model   `json:"model"`
	Delta float64 `json:"delta"`
}

func (f *localFn) ProcessElement(ctx context.Context, file fileio.ReadableFile, st string, emit func(string)) error {
	p := file.Metadata.Path
	if failHook != nil {
		if err := failHook(p); err != nil {
			return err
		}
	}
	data, err := readShard(ctx, file)
	if err != nil {
		return dataError(fmt.Errorf("shard %s: %w", p, err))
	}
	var s state
	if err := json.Unmarshal([]byte(st), &s); err != nil {
		return fmt.Errorf("fg-beam: side input: %w", err)
	}
	sb, err := f.Model.CompileShard(p, data)
	if err != nil {
		return dataError(err)
	}
	global, err := s.Global.natural()
	if err != nil {
		return err
	}
	old, err := s.Sites[p].natural()
	if err != nil || old.Prec == nil {
		return fmt.Errorf("fg-beam: no site for shard %s in the side input (%v)", p, err)
	}
	u, err := shard.LocalUpdate(ctx, global, old, sb.Sites, sb.Settings.Local, f.Delta)
	if err != nil {
		return fmt.Errorf("shard %s: %w", p, err)
	}
	line, err := encodeUpdate(p, u)
	if err != nil {
		return err
	}
	emit(line)
	return nil
}

// sumFn is the global combine: the sum of the shards' new sites in
// natural parameters, Σ_k (Λ_k, η_k).
type sumFn struct{}

func (sumFn) CreateAccumulator() wireNat { return wireNat{} }

func (sumFn) AddInput(a wireNat, line string) (wireNat, error) {
	var u update
	if err := json.Unmarshal([]byte(line), &u); err != nil {
		return a, err
	}
	return addWire(a, u.Site), nil
}

func (sumFn) MergeAccumulators(a, b wireNat) wireNat { return addWire(a, b) }

func (sumFn) ExtractOutput(a wireNat) string {
	b, _ := json.Marshal(a)
	return string(b)
}

func addWire(a, b wireNat) wireNat {
	if a.Shift == nil {
		return wireNat{Prec: append([]float64(nil), b.Prec...), Shift: append([]float64(nil), b.Shift...)}
	}
	if b.Shift == nil {
		return a
	}
	floats.Add(a.Prec, b.Prec)
	floats.Add(a.Shift, b.Shift)
	return a
}
