// Package funcs is the template functions of the engine, grouped by
// namespace as Hugo groups its own: text, lists, objects, time and
// templates. Templates get all of sprig except what would make a render
// depend on the machine (Excluded), sprig's trunc and substr counted in
// characters rather than bytes, and the functions of Catalog, each of which
// documents itself with examples that the test suite runs and that
// templates/README.md shows.
package funcs

import (
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"github.com/promptsmith/promptsmith/internal/input"
)

// Env is what the functions of one library read: the key order of the
// objects they are given, and the template set that include looks names up
// in. It is built per library, never shared between libraries.
type Env struct {
	// Keys gives objects' keys in input order (see input.KeyOrder).
	Keys *input.KeyOrder
	// Templates returns the set include executes from; it is set after
	// parsing, since the set holds the functions.
	Templates func() *template.Template
	// Limits bound the lists and texts functions build.
	Limits Limits
	// Run is the execution in progress, when there is one.
	Run *Run
}

// Func is one function of the engine's own, as templates/README.md lists it.
type Func struct {
	Name      string
	Namespace string
	Signature string // how it is called: "trunc N TEXT"
	Doc       string
	Examples  []Example
	Fn        any
}

// Example is a template, the data it runs on (JSON) and what it writes.
type Example struct {
	Data     string
	Template string
	Output   string
}

// Excluded are sprig's functions that a template may not call: they read the
// clock, the machine's time zone, randomness, the environment or the
// network, or make keys, so the same input would not give the same bytes
// everywhere.
func Excluded() []string {
	return []string{
		"now", "ago", "date", "dateInZone", "date_in_zone", "htmlDate", "htmlDateInZone",
		"durationRound", "toDate", "mustToDate", "unixEpoch", "dateModify", "date_modify",
		"mustDateModify", "must_date_modify",
		"randAlphaNum", "randAlpha", "randAscii", "randNumeric", "randBytes", "randInt",
		"uuidv4", "shuffle", "env", "expandenv", "getHostByName",
		"genPrivateKey", "buildCustomCert", "genCA", "genCAWithKey", "genSelfSignedCert",
		"genSelfSignedCertWithKey", "genSignedCert", "genSignedCertWithKey",
		"encryptAES", "bcrypt", "htpasswd",
	}
}

// Map is every function a template may call, for env.
func Map(env *Env) template.FuncMap {
	f := unguarded(env)
	env.guard(f)
	return f
}

// unguarded is every function a template may call, for env, before guard
// wraps them.
func unguarded(env *Env) template.FuncMap {
	f := sprig.TxtFuncMap()
	for _, name := range Excluded() {
		delete(f, name)
	}
	for name, fn := range env.bounded(f) {
		f[name] = fn
	}
	for _, fn := range Catalog(env) {
		f[fn.Name] = fn.Fn
	}
	return f
}

// Catalog lists the engine's own functions, namespace by namespace, bound to
// env. Where a name is also sprig's (trunc, substr, date, keys, values), the
// function means what sprig's does, made deterministic or counted in
// characters.
func Catalog(env *Env) []Func {
	if env == nil {
		env = &Env{}
	}
	var out []Func
	out = append(out, textFuncs()...)
	out = append(out, listFuncs()...)
	out = append(out, objectFuncs(env)...)
	out = append(out, timeFuncs()...)
	out = append(out, templateFuncs(env)...)
	return out
}
