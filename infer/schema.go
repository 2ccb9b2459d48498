package infer

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// This file is the options schema: every option of an infer or learn line
// is one descriptor (Option) written here once — its key, the type of
// value it takes, its range check (the Check functions of options.go),
// its default for each method (the constants of methods.go), how it is
// stored and its documentation — and each method's and engine's options
// are a Schema listing descriptors. The compiler parses an option by
// looking its key up in the schema (compile/options.go reads a value of
// each ValueKind); the engines say which options they take by their
// schema (compile.Engine.Options); the option tables of docs/language.md
// and docs/learn.md are generated from it (Markdown, LearnMarkdown; kept
// equal by TestOptionTablesDocs).

// ValueKind is the type of value an option takes, which says how the
// compiler reads the expression written after `key =`.
type ValueKind int

// The kinds of option values.
const (
	NumberValue     ValueKind = iota // a number: tol = 1e-6
	CountValue                       // an integer: max_iter = 50
	BoolValue                        // true or false
	DivergenceValue                  // kl, relaxed_kl(c = C), alpha(A), t(nu = NU)
	ScheduleValue                    // sequential, parallel, random(seed = S), residual
	SchemeValue                      // exact, gh(n = N), laplace, quick_laplace, gq, vq
	NameValue                        // one of the option's Choices: family = full
)

// Value is an option's value as read by the compiler; the field of its
// ValueKind is set (ScheduleValue: Schedule, and Int the seed of random).
type Value struct {
	Num        float64
	Int        int
	Bool       bool
	Name       string
	Divergence Divergence
	Schedule   Schedule
	Scheme     Scheme
}

// Option describes one option of a line whose options set a T
// (LineOptions for infer lines, LearnOptions for learn lines).
type Option[T any] struct {
	Key  string
	Kind ValueKind
	// Choices are the names a NameValue option takes.
	Choices []string
	// Check checks a value's range, reported at the value (a LimitError
	// at the whole option; nil: the kind's reading checks it). What depends on the
	// model — the memory of the draws, ep's default approx — the engine
	// checks or settles with the model (compile's Checker).
	Check func(Value) error
	// Default is the value method m starts with (false: none, the zero
	// value); the defaults of a line are those of every option
	// (Defaults), so that Settings.WithDefaults needs no other table.
	Default func(m Method) (Value, bool)
	// Set stores a value.
	Set func(*T, Value)
	// Values documents the values and DefaultDoc the default when it is
	// not the Default of each method (it depends on the model, or there
	// is none); both go into the generated tables of the docs.
	Values, DefaultDoc string
}

// Schema is the options a method, an engine or a learn line takes, in
// the order error messages list them.
type Schema[T any] struct{ opts []*Option[T] }

// LineOption and LineSchema are the option descriptors and schemas of
// infer lines.
type (
	LineOption = Option[LineOptions]
	LineSchema = Schema[LineOptions]
)

func schema[T any](opts ...*Option[T]) *Schema[T] { return &Schema[T]{opts: slices.Clip(opts)} }

// with returns a schema of s's options followed by opts.
func (s *Schema[T]) with(opts ...*Option[T]) *Schema[T] {
	return schema(slices.Concat(s.opts, opts)...)
}

// Options lists the descriptors.
func (s *Schema[T]) Options() []*Option[T] { return slices.Clip(s.opts) }

// Keys lists the option keys.
func (s *Schema[T]) Keys() []string {
	keys := make([]string, len(s.opts))
	for i, o := range s.opts {
		keys[i] = o.Key
	}
	return keys
}

// Lookup returns the descriptor of option key.
func (s *Schema[T]) Lookup(key string) (*Option[T], bool) {
	for _, o := range s.opts {
		if o.Key == key {
			return o, true
		}
	}
	return nil, false
}

// Has reports whether the schema takes option key.
func (s *Schema[T]) Has(key string) bool {
	_, ok := s.Lookup(key)
	return ok
}

// LineOptions are what the options of an infer line set: the loop's
// Settings and the options of particular engines. A line that sets no
// option has its method's Defaults (Entry.Defaults).
type LineOptions struct {
	Settings Settings
	Approx   Scheme // exact (closed form) or a numerical scheme (gh with its nodes)
	Family   Family
	Passes   int // ADF / mini-batch passes; 1 = single-pass ADF
	// ExactMethod is infer exact's integrator (ExactMethods), "" when not
	// written: chosen by the block's dimension.
	ExactMethod string
	// NonNegativeSites clamps new EP site precisions at zero, GPML infEP's
	// convention (`nonnegative_sites = true`); it changes the fixed point
	// only for likelihoods that are not log-concave, such as step.
	NonNegativeSites bool
	// Shards > 0 runs EP over that many contiguous data shards (infer/shard).
	Shards int
	// mcmc run lengths
	MCMCSpec
}

// Defaults returns the options of a line of method m that sets none.
func Defaults(m Method) LineOptions {
	var d LineOptions
	for _, o := range InferOptions.opts {
		if o.Default == nil {
			continue
		}
		if v, ok := o.Default(m); ok {
			o.Set(&d, v)
		}
	}
	return d
}

// always is the Default of an option whose default is v for every method.
func always(v Value) func(Method) (Value, bool) {
	return func(Method) (Value, bool) { return v, true }
}

// perMethod is the Default of an option whose default depends on the
// method (none for the methods not listed).
func perMethod(vs map[Method]Value) func(Method) (Value, bool) {
	return func(m Method) (Value, bool) {
		v, ok := vs[m]
		return v, ok
	}
}

func checkInt(f func(int) error) func(Value) error {
	return func(v Value) error { return f(v.Int) }
}

func checkNum(f func(float64) error) func(Value) error {
	return func(v Value) error { return f(v.Num) }
}

// The options of infer lines.
var (
	optDivergence = &LineOption{
		Key: "divergence", Kind: DivergenceValue,
		Default: func(m Method) (Value, bool) { return Value{Divergence: KL{}}, m.HasDivergence() },
		Set:     func(l *LineOptions, v Value) { l.Settings.Divergence = v.Divergence },
		Values:  "`kl`, `relaxed_kl(c = C)` (C > 0), `alpha(A)` / `alpha(a = A)` (0 ≤ A ≤ 1; `alpha(0)` is variational message passing, on models with non-Gaussian families: docs/families.md), `t(nu = NU)` (NU > 0)",
	}
	optSchedule = &LineOption{
		Key: "schedule", Kind: ScheduleValue,
		Default: always(Value{Schedule: Sequential}),
		Set: func(l *LineOptions, v Value) {
			l.Settings.Schedule = v.Schedule
			if v.Schedule == Random {
				l.Settings.Seed = uint64(v.Int)
			}
		},
		Values: "`sequential`, `parallel`, `random(seed = S)`, `residual`; which ones depend on the engine serving the line (below)",
	}
	optDamping = &LineOption{
		Key: "damping", Kind: NumberValue, Check: checkNum(CheckDamping),
		Default: always(Value{Num: 1}),
		Set:     func(l *LineOptions, v Value) { l.Settings.Damping = v.Num },
		Values:  "step size in [1e-4, 1] on messages in natural parameters; 1 = undamped (below 1e-4 a step cannot be told from rounding: refused)",
	}
	optAdaptDamping = &LineOption{
		Key: "adapt_damping", Kind: BoolValue,
		Default: always(Value{Bool: true}),
		Set:     func(l *LineOptions, v Value) { l.Settings.FixedDamping = !v.Bool },
		Values:  "`true`: when the residual stops decreasing (an oscillation), the step is halved, down to 1e-4, and doubled back when it decreases again; each change is reported as a warning. `false` keeps `damping` for the whole run (Infer.NET, libDAI and RxInfer never adapt). See below",
	}
	optTol = &LineOption{
		Key: "tol", Kind: NumberValue, Check: checkNum(CheckTol),
		Default: perMethod(map[Method]Value{MethodEP: {Num: DefaultMomentTol}, MethodBP: {Num: DefaultBeliefTol}}),
		Set:     func(l *LineOptions, v Value) { l.Settings.Tol = v.Num },
		Values:  "finite convergence tolerance > 0: on Gaussian moments (ep), on discrete beliefs (bp)",
	}
	optMaxIter = &LineOption{
		Key: "max_iter", Kind: CountValue, Check: checkInt(CheckMaxIter),
		Default: perMethod(map[Method]Value{MethodEP: {Int: DefaultMaxIter}, MethodBP: {Int: DefaultBPMaxIter}}),
		Set:     func(l *LineOptions, v Value) { l.Settings.MaxIter = v.Int },
		Values:  "sweeps, 1 … 10⁹ (a run honours Ctrl-C)",
	}
	optSeed = &LineOption{
		Key: "seed", Kind: CountValue, Check: checkInt(CheckSeed),
		Default: always(Value{Int: DefaultSeed}),
		Set:     func(l *LineOptions, v Value) { l.Settings.Seed = uint64(v.Int) },
		Values:  "integer 0 … 2⁵³ − 1 for random schedules and samplers",
	}
	// The default of approx on ep depends on the model's sites: the
	// engine settles it with the model (compile's Checker.Approx: exact
	// when every site has closed-form moments); exact is where it starts.
	optApprox = &LineOption{
		Key: "approx", Kind: SchemeValue,
		Default:    always(Value{Scheme: Scheme{Kind: SchemeExact}}),
		Set:        func(l *LineOptions, v Value) { l.Approx = v.Scheme },
		Values:     "`exact` (closed form), `gh(n = N)` (2 ≤ N ≤ 1000, default 32), `laplace`, `quick_laplace`, `gq`, `vq`",
		DefaultDoc: "see below",
	}
	optFamily = &LineOption{
		Key: "family", Kind: NameValue, Choices: familyNames[:],
		Check: func(v Value) error {
			_, err := ParseFamily(v.Name)
			return err
		},
		Default: always(Value{Name: FamilyFull.String()}),
		Set: func(l *LineOptions, v Value) {
			l.Family, _ = ParseFamily(v.Name) // checked
		},
		Values: "`full` or `factorized` Gaussian; `factorized` needs independent priors (`normal`, or `mvnormal` with a diagonal covariance) and a numerical `approx` (`gh` only for a single element) or `exact` on closed-form sites",
	}
	optPasses = &LineOption{
		Key: "passes", Kind: CountValue, Check: checkInt(CheckPasses),
		Set:        func(l *LineOptions, v Value) { l.Passes = v.Int },
		Values:     "passes over mini-batch factors (1 = single-pass ADF), 1 … 10⁹; not written = iterate to `tol`",
		DefaultDoc: "—",
	}
	optNonNegativeSites = &LineOption{
		Key: "nonnegative_sites", Kind: BoolValue,
		Default: always(Value{Bool: false}),
		Set:     func(l *LineOptions, v Value) { l.NonNegativeSites = v.Bool },
		Values:  "`true` clamps every new site precision at 0 (τ̃ ← max(τ̃, 0)), GPML infEP's convention; it changes the fixed point only for likelihoods that are not log-concave (`step`), where plain EP may legitimately produce negative site precisions (on `probit`, log-concave, it never binds: GPML's probit references hold with and without it). Refused where no engine would apply it: `family = factorized`, `t(nu)`, mini-batch `exp` factors and libsvm streams",
	}
	optShards = &LineOption{
		Key: "shards", Kind: CountValue, Check: checkInt(CheckShards),
		Set:        func(l *LineOptions, v Value) { l.Shards = v.Int },
		Values:     "`K` ≥ 1: EP over K data shards (infer/shard; Gelman et al. 2020): each block's sites are cut into K contiguous shards, each shard owns one Gaussian site on the latent (precision matrix and shift) and updates it by local EP on its data against the cavity of the global posterior; the global posterior is the prior plus the shard sites. `damping`, `tol` and `max_iter` then act on the iteration over shards (R = the change of the global mean and covariance), each local EP runs undamped to tol/100 with the line's `schedule`. Needs `divergence = kl`, a `normal`/`mvnormal` prior, sites on `dot(X[i], w)` and at least K sites per block; log evidence is the EP evidence of the shard sites (equal to EP's). Sharded EP has full EP's fixed point; on Apache Beam the shards are csv files (docs/beam.md). Bound: K ≤ 65536",
		DefaultDoc: "unsharded",
	}
	// The run lengths: their product with the sampled quantities, the
	// draws kept, is bounded by the memory budget with the model
	// (compile's Checker.Draws).
	optSamples = &LineOption{
		Key: "samples", Kind: CountValue, Check: checkInt(CheckSamples),
		Default: perMethod(map[Method]Value{MethodMCMC: {Int: MCMCSamples}}),
		Set:     func(l *LineOptions, v Value) { l.Samples = v.Int },
		Values:  "draws per chain ≥ 4 (split-chain diagnostics need 4); chains × samples × sampled quantities (elements of a real latent, states of a discrete one, one for a binary one) at most the memory budget / 16 bytes, the draws mcmc keeps (docs/cli.md, \"Memory budget\")",
	}
	optBurnin = &LineOption{
		Key: "burnin", Kind: CountValue, Check: checkInt(CheckBurnin),
		Default: perMethod(map[Method]Value{MethodMCMC: {Int: MCMCBurnin}}),
		Set:     func(l *LineOptions, v Value) { l.Burnin = v.Int },
		Values:  "discarded sweeps per chain, 0 … 10⁸",
	}
	optChains = &LineOption{
		Key: "chains", Kind: CountValue, Check: checkInt(CheckChains),
		Default: perMethod(map[Method]Value{MethodMCMC: {Int: MCMCChains}}),
		Set:     func(l *LineOptions, v Value) { l.Chains = v.Int },
		Values:  "independent chains, 1 … 256",
	}
	optExactMethod = &LineOption{
		Key: "method", Kind: NameValue, Choices: ExactMethods,
		Check:      func(v Value) error { return CheckExactMethod(v.Name) },
		Set:        func(l *LineOptions, v Value) { l.ExactMethod = v.Name },
		Values:     "`quad` (adaptive cubature, at most 3 dimensions) or `is` (importance sampling, 10⁶ draws, Monte Carlo standard errors) for blocks that are not linear-Gaussian",
		DefaultDoc: "`quad`",
	}
)

// The schemas of the methods and of the engines that take fewer options
// than their method (each engine's Options, infer/run): message passing
// on a factor graph (with or without gates) has no shards, passes or
// nonnegative_sites, which act on Gaussian blocks; belief propagation on
// discrete latents takes the options of its loop and seed (family,
// approx and the options of the Gaussian blocks have nothing to act on);
// the engines of typed factor graphs take the options of their loop
// (NetEP), none (NetExact), or the run lengths and seed (NetMCMC).
var (
	// LoopOptions are the options of the iteration loop.
	LoopOptions = schema(optDivergence, optSchedule, optDamping, optAdaptDamping, optTol, optMaxIter)
	// GraphEPOptions are those of message passing on a factor graph.
	GraphEPOptions = LoopOptions.with(optSeed, optApprox, optFamily)
	// BeliefOptions are those of belief propagation on discrete latents.
	BeliefOptions = LoopOptions.with(optSeed)
	// SamplerOptions are the run lengths of a sampler and its seed.
	SamplerOptions = schema(optSamples, optBurnin, optChains, optSeed)
	// NoOptions is the schema of an engine that takes no option.
	NoOptions = schema[LineOptions]()

	// epOptions and exactOptions are the options of ep and exact (bp's
	// are BeliefOptions, mcmc's SamplerOptions).
	epOptions    = LoopOptions.with(optApprox, optFamily, optPasses, optNonNegativeSites, optShards, optSeed)
	exactOptions = schema(optExactMethod, optSeed)

	// InferOptions are all the options of infer lines, in the order
	// error messages and the docs list them.
	InferOptions = LoopOptions.with(optSeed, optApprox, optFamily, optPasses, optNonNegativeSites, optShards, optSamples, optBurnin, optChains, optExactMethod)
)

// The options of learn lines (zero values: the optimiser's defaults,
// LearnOptions).
var (
	optLearnMaxIter = &Option[LearnOptions]{
		Key: "max_iter", Kind: CountValue, Check: checkInt(CheckLearnIter),
		Set:        func(l *LearnOptions, v Value) { l.MaxIter = v.Int },
		Values:     "optimiser iterations, 1 … 100 000 (evaluations are capped at 4·max_iter); Nelder–Mead's evaluations for the t-EP evidence",
		DefaultDoc: fmt.Sprintf("%d; t-EP evidence %d", DefaultLearnIter, DefaultTLearnEval),
	}
	optLearnTol = &Option[LearnOptions]{
		Key: "tol", Kind: NumberValue, Check: checkNum(CheckTol),
		Set:        func(l *LearnOptions, v Value) { l.Tol = v.Num },
		Values:     "finite number > 0: stop when ‖∂(−log Z)/∂u‖∞ < tol·max(1, n/250) for n EP sites; for the t-EP evidence, on the change of −log Z over 20 iterations",
		DefaultDoc: formatValue(NumberValue, Value{Num: DefaultLearnTol}) + "; t-EP evidence " + formatValue(NumberValue, Value{Num: DefaultTLearnTol}),
	}
	optLearnMethod = &Option[LearnOptions]{
		Key: "method", Kind: NameValue, Choices: optimizerNames(),
		Check: func(v Value) error {
			_, err := ParseOptimizer(v.Name)
			return err
		},
		Set:        func(l *LearnOptions, v Value) { l.Method = Optimizer(v.Name) },
		Values:     "the optimiser (gonum/optimize): `lbfgs`, `bfgs` or `cg`; refused on the t-EP evidence (Nelder–Mead, no gradient)",
		DefaultDoc: formatValue(NameValue, Value{Name: string(Optimizers[0])}),
	}
	// LearnSchema are the options of learn lines.
	LearnSchema = schema(optLearnMaxIter, optLearnTol, optLearnMethod)
)

func optimizerNames() []string {
	out := make([]string, len(Optimizers))
	for i, o := range Optimizers {
		out[i] = string(o)
	}
	return out
}

// Markdown renders the options of infer lines as the table of
// docs/language.md ("Options"): key, the methods taking it, its values
// and its default (the methods' Defaults, or DefaultDoc).
func Markdown() string {
	var b strings.Builder
	b.WriteString("| option | methods | values | default |\n|---|---|---|---|\n")
	for _, o := range InferOptions.opts {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", o.Key, methodsCell(o.Key), o.Values, defaultCell(o))
	}
	return b.String()
}

// LearnMarkdown renders the options of learn lines as the table of
// docs/learn.md.
func LearnMarkdown() string {
	var b strings.Builder
	b.WriteString("| option | values | default |\n|---|---|---|\n")
	for _, o := range LearnSchema.opts {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", o.Key, o.Values, o.DefaultDoc)
	}
	return b.String()
}

// methodsCell lists the methods taking option key ("all" when every
// method does).
func methodsCell(key string) string {
	ms := MethodsAccepting(key)
	if len(ms) == len(Methods) {
		return "all"
	}
	return joinNames(ms)
}

// defaultCell is the default of option o for the methods taking it: one
// value when they agree, else each method's ("ep 200, bp 10000").
func defaultCell(o *LineOption) string {
	if o.DefaultDoc != "" {
		return o.DefaultDoc
	}
	var parts, vals []string
	for _, m := range MethodsAccepting(o.Key) {
		v, ok := o.Default(m)
		if !ok {
			panic(fmt.Sprintf("infer: option %s has no default for %s and no DefaultDoc", o.Key, m))
		}
		s := formatValue(o.Kind, v)
		parts, vals = append(parts, fmt.Sprintf("%s %s", m, s)), append(vals, s)
	}
	if len(slices.Compact(slices.Clone(vals))) == 1 {
		return vals[0]
	}
	return strings.Join(parts, ", ")
}

// formatValue renders a default as the docs write it: numbers plain
// (1e-6, not 1e-06), names in backquotes.
func formatValue(k ValueKind, v Value) string {
	switch k {
	case NumberValue:
		s := strconv.FormatFloat(v.Num, 'g', -1, 64)
		return strings.Replace(strings.Replace(s, "e-0", "e-", 1), "e+0", "e+", 1)
	case CountValue:
		return strconv.Itoa(v.Int)
	case BoolValue:
		return "`" + strconv.FormatBool(v.Bool) + "`"
	case DivergenceValue:
		return "`" + v.Divergence.String() + "`"
	case ScheduleValue:
		return "`" + v.Schedule.String() + "`"
	case SchemeValue:
		return "`" + v.Scheme.String() + "`"
	}
	return "`" + v.Name + "`"
}
