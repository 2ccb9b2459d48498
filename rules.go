package fg

import "github.com/fg-infer/fg/factor"

// Rules returns the message-rule table derived from package factor's kinds
// (the table `fg rules` prints): for every factor kind and role, the
// methods and divergences with a rule, each with its quality and whether
// its moments come from the infer line's numerical scheme.
func Rules() []factor.Rule { return factor.Rules() }
