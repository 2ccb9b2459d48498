package factor

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fg-infer/fg/stdlib"
)

// Role is the part a factor kind plays in a model; it is part of a rule's
// key, since the same name can play two roles (normal as a prior and as a
// likelihood).
type Role int

const (
	// Prior is a distribution over a whole latent: `latent x ~ DIST(...)`.
	Prior Role = iota
	// Likelihood is an observation model on a latent projection: `y ~ DIST(a, ...)`.
	Likelihood
	// Potential is a factor statement: `factor POTENTIAL(...)`.
	Potential
	// Loss is a loss function inside a `factor exp(...)` potential.
	Loss
)

var roleNames = [...]string{"prior", "likelihood", "potential", "loss"}

func (r Role) String() string {
	if r < 0 || int(r) >= len(roleNames) {
		return fmt.Sprintf("Role(%d)", int(r))
	}
	return roleNames[r]
}

// Quality marks how well a rule is established.
type Quality int

const (
	// Stable rules are derived in the cited papers and tested against an
	// independent computation (closed form, quadrature or enumeration).
	Stable Quality = iota
	// Experimental rules run but lack an independent reference; using one
	// gives a compile-time warning.
	Experimental
)

func (q Quality) String() string {
	if q == Stable {
		return "stable"
	}
	return "experimental"
}

// Kind is one factor kind in one role. Its value type implements the rule
// interfaces of rules.go that it supports.
type Kind interface {
	// Name is the builtin's name in fg models.
	Name() string
	// Role is the role the kind plays.
	Role() Role
	// Builtin is the signature, parameters, defaults and docs of the
	// builtin the kind is written with (shared by the roles of one name).
	Builtin() *stdlib.Builtin
}

// Qualities is implemented by kinds some of whose rules are experimental:
// Quality returns the quality of the rule under column c (Stable when the
// kind does not say otherwise).
type Qualities interface {
	Quality(c Column) Quality
}

// Key identifies a kind: its name and role.
type Key struct {
	Name string
	Role Role
}

func (k Key) String() string { return k.Name + " (" + k.Role.String() + ")" }

// KeyOf returns the key of a kind.
func KeyOf(k Kind) Key { return Key{k.Name(), k.Role()} }

// kinds is every factor kind, in the order of the rule table.
var kinds = []Kind{
	NormalPrior{}, MVNormal{}, GP{}, StudentTPrior{}, TP{}, UniformSpin{}, Categorical{},
	Beta{}, Gamma{}, InvGamma{}, Dirichlet{},
	Probit{}, Step{}, Logistic{}, BernoulliLogit{}, Normal{}, StudentT{}, PoissonLog{}, Bernoulli{}, Binomial{}, Poisson{}, Mixture{},
	Ising{}, Field{}, Table{}, Factors{}, Exp{},
	LogisticLoss{}, Hinge{}, Quasi01{},
}

var byKey = map[Key]Kind{}

func init() {
	seen := map[*stdlib.Builtin]bool{}
	for _, k := range kinds {
		key := KeyOf(k)
		if _, dup := byKey[key]; dup {
			panic("factor: duplicate kind " + key.String())
		}
		byKey[key] = k
		if b := k.Builtin(); !seen[b] {
			seen[b] = true
			stdlib.Register(*b)
		}
	}
}

// All returns every kind in table order.
func All() []Kind { return append([]Kind(nil), kinds...) }

// Lookup returns the kind called name in role r.
func Lookup(name string, r Role) (Kind, bool) {
	k, ok := byKey[Key{name, r}]
	return k, ok
}

// Find returns the kind called name in role r, or an error that lists the
// kinds of that role and, when the name exists in another role, says so.
func Find(name string, r Role) (Kind, error) {
	if k, ok := Lookup(name, r); ok {
		return k, nil
	}
	var other []string
	for _, k := range kinds {
		if k.Name() == name {
			other = append(other, k.Role().String())
		}
	}
	msg := fmt.Sprintf("unknown %s `%s`", r, name)
	if len(other) > 0 {
		msg = fmt.Sprintf("`%s` is a %s, not a %s", name, strings.Join(other, " and a "), r)
	}
	return nil, fmt.Errorf("%s; %ss are %s", msg, r, strings.Join(Names(r), ", "))
}

// Names returns the sorted names of the kinds of role r.
func Names(r Role) []string {
	var out []string
	for _, k := range kinds {
		if k.Role() == r {
			out = append(out, k.Name())
		}
	}
	sort.Strings(out)
	return out
}

// quality returns the quality of kind k's rule under column c.
func quality(k Kind, c Column) Quality {
	if q, ok := k.(Qualities); ok {
		return q.Quality(c)
	}
	return Stable
}
