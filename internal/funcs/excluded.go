package funcs

// Exclusion says why a function of Excluded is left out and what a template
// does instead, for the error a template that calls it gets.
type Exclusion struct {
	// Reads names what the function depends on that the input does not
	// give: "the clock", "randomness", "the environment".
	Reads string
	// Why is the sentence an author reads: what the function would do to
	// the prompt.
	Why string
	// Instead is what to write instead, with an example.
	Instead string
}

// Excluded's reasons, one per kind of dependency.
const (
	clockWhy  = "it reads the machine's clock or time zone, so the same input would give other bytes tomorrow or on another machine"
	randomWhy = "it draws random values, so the same input would give other bytes on every render"
	keyWhy    = "it makes keys, certificates or hashes from random values, so the same input would give other bytes on every render (and a prompt has no use for secrets)"
)

// exclusions has an entry for every name of Excluded; a test holds the
// two lists to each other. It is built on each call, for an error: no
// package state.
func exclusions() map[string]Exclusion {
	x := map[string]Exclusion{
		"now": {Reads: "the clock", Why: clockWhy,
			Instead: `use the input's now field: templates get time from the input, so the same input gives the same bytes ({{ isoTime .now }}, {{ date "2006-01-02" .now }}, {{ relativeTime .startedAt .now }})`},
		"ago": {Reads: "the clock", Why: clockWhy,
			Instead: `measure from the input's now field: {{ relativeTime .startedAt .now }} ("5m ago", "in 3h"), or {{ age .startedAt .now }} ("5m")`},
		"date": {Reads: "the clock", Why: "sprig's date without a time formats the machine's clock, in the machine's time zone",
			Instead: `give it a time from the input, such as its now field: {{ date "2006-01-02" .now }} formats it in the time's own offset, so the same input gives the same bytes`},
		"dateInZone": {Reads: "the clock", Why: clockWhy,
			Instead: `format a time from the input with date LAYOUT TIME ({{ date "2006-01-02 15:04" .now }}), which keeps the time's own offset; pass the time with the offset the prompt should show`},
		"htmlDate": {Reads: "the clock", Why: clockWhy,
			Instead: `format a time from the input: {{ date "2006-01-02" .now }}`},
		"toDate": {Reads: "the time zone", Why: "it reads a time without an offset in the machine's time zone",
			Instead: `pass the time in the input as ISO 8601 text with an offset, and format it with isoTime TIME or date LAYOUT TIME`},
		"unixEpoch": {Reads: "the clock", Why: "it needs a Go time, which only the clock functions make",
			Instead: `pass the epoch in the input, or format the input's time with {{ isoTime .now }}`},
		"durationRound": {Reads: "the clock", Why: "given a time, it measures the span to the machine's clock",
			Instead: `measure between two times of the input: {{ age .startedAt .now }}`},
		"dateModify": {Reads: "the clock", Why: "it shifts a Go time, which only the clock functions make",
			Instead: `compute the shifted time where the input is made, and pass it as a field`},
		"getHostByName": {Reads: "the network", Why: "it asks the machine's DNS, whose answer changes with the machine and the hour",
			Instead: `resolve the name before rendering and pass the address in the input (a field of the schema; render gather can fill it from a command)`},
		"env": {Reads: "the environment", Why: "it reads the environment of the process that renders, which differs between machines and callers",
			Instead: `pass the value in the input: add a field to the schema and read it as .field (render gather fills a field from an environment variable: {field: /shell, env: SHELL})`},
		"uuidv4": {Reads: "randomness", Why: randomWhy,
			Instead: `derive the id from the input: an id of the manifest (ids: {run_id: {of: [/field]}} in prompt.yaml gives .run_id, a hash of those fields), or an id field of the input`},
		"randAlphaNum": {Reads: "randomness", Why: randomWhy,
			Instead: `derive the value from the input: an id of the manifest (ids: in prompt.yaml, a hash of input fields), or a field the caller passes`},
		"shuffle": {Reads: "randomness", Why: randomWhy,
			Instead: `keep the input's order, or sort it: {{ range sortBy "name" .items }}...{{ end }}`},
		"genPrivateKey": {Reads: "randomness", Why: keyWhy,
			Instead: `make keys outside the prompt; pass what the prompt must show in the input`},
	}
	for alias, name := range map[string]string{
		"date_in_zone": "dateInZone", "htmlDateInZone": "htmlDate", "mustToDate": "toDate",
		"date_modify": "dateModify", "mustDateModify": "dateModify", "must_date_modify": "dateModify",
		"expandenv": "env",
		"randAlpha": "randAlphaNum", "randAscii": "randAlphaNum", "randNumeric": "randAlphaNum",
		"randBytes": "randAlphaNum", "randInt": "randAlphaNum",
		"buildCustomCert": "genPrivateKey", "genCA": "genPrivateKey", "genCAWithKey": "genPrivateKey",
		"genSelfSignedCert": "genPrivateKey", "genSelfSignedCertWithKey": "genPrivateKey",
		"genSignedCert": "genPrivateKey", "genSignedCertWithKey": "genPrivateKey",
		"encryptAES": "genPrivateKey", "bcrypt": "genPrivateKey", "htpasswd": "genPrivateKey",
	} {
		x[alias] = x[name]
	}
	return x
}

// WhyExcluded says why the function name of Excluded is left out and what
// to write instead; ok is false for a name Excluded does not hold.
func WhyExcluded(name string) (Exclusion, bool) {
	x, ok := exclusions()[name]
	return x, ok
}
