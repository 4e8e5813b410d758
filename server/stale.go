package server

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/server/internal/openapi"
)

// A working copy served with --watch may hold a variant that no longer
// loads: the server keeps answering it with its last good version
// (engine.Library.Fallback, swapped in by Swap), and a reload that fails
// altogether keeps the whole last library that loaded (ReloadFailed).
// Every answer made from such a version says so, in X-Promptsmith-Stale
// and in a stale member of its JSON body, and names the library that
// made it, which is not the working copy's: the headers and the body's
// provenance always name the same library.

// staleHeader marks an answer made from a version of the variant that is
// not the working copy's.
const staleHeader = openapi.StaleHeader

// maxStaleValue bounds the value of X-Promptsmith-Stale: the body carries
// the whole error.
const maxStaleValue = 300

// source is what the answers for one variant are made from now.
type source struct {
	v *engine.Variant
	// prov is the provenance of the library that loaded v: for a variant
	// served from its last good version, an earlier library than the one
	// served.
	prov engine.Provenance
	// stale says why the working copy's version of the variant is not the
	// one served; nil when it is.
	stale *engine.Error
	// label and commit name the label and commit that serve v (render
	// serve --repo), for the audit record; "" without labels.
	label, commit string
}

// source looks the named variant up in what st serves.
func (st *state) source(name string) (source, error) {
	v, err := st.lib.Variant(name)
	if err != nil {
		return source{}, err
	}
	return source{v: v, prov: st.provenance(name), stale: st.stale(name)}, nil
}

// stale says why the variant served under name is not the working copy's,
// as the wire says it: the whole reload failed (the events stream says
// stale too), or the variant does not load and is served from its last
// good version. nil when it is the working copy's.
func (st *state) stale(name string) *engine.Error {
	err := st.failed
	if err == nil {
		err = st.lib.Stale(name)
	}
	if err == nil {
		return nil
	}
	e := *engine.AsError(err)
	if e.Variant == "" && st.failed == nil {
		e.Variant = name
	}
	return wireError(&e)
}

// staleVariants are the variants st serves from their last good version
// because they do not load.
func (st *state) staleVariants() []string {
	var out []string
	for _, name := range st.lib.Names() {
		if st.lib.Stale(name) != nil {
			out = append(out, name)
		}
	}
	return out
}

// provenance is that of the library that loaded the variant served under
// name: the library served, unless the variant is one of its last good
// versions, which an earlier library loaded (origins).
func (st *state) provenance(name string) engine.Provenance {
	if p, ok := st.origins[name]; ok {
		return p
	}
	return st.lib.Provenance()
}

// originsOf finds, for each variant lib serves from its last good version,
// the provenance of the library that loaded it: lib.Fallback took it from
// the library old served (render serve passes that one), which either
// loaded it or had it from an earlier one in turn. A variant taken from
// another library is not found; a render's answer names its library from
// the Result all the same.
func originsOf(lib *engine.Library, old *state) map[string]engine.Provenance {
	var out map[string]engine.Provenance
	for _, name := range lib.Names() {
		if old == nil || lib.Stale(name) == nil {
			continue
		}
		v, err := lib.Variant(name)
		if err != nil {
			continue
		}
		if was, err := old.lib.Variant(name); err == nil && was == v {
			if out == nil {
				out = map[string]engine.Provenance{}
			}
			out[name] = old.provenance(name)
		}
	}
	return out
}

// provenanceHeaders names the library and the variant that answer a
// request, and marks the answer stale when it is made from a version of
// the variant that is not the working copy's.
func provenanceHeaders(w http.ResponseWriter, src source) {
	h := w.Header()
	libraryHeaders(h, src.prov)
	h.Set("X-Promptsmith-Variant-Hash", src.v.Hash())
	if src.stale != nil {
		h.Set(staleHeader, staleValue(src.stale))
	} else {
		h.Del(staleHeader)
	}
}

// resultHeaders names the library and variant a Result names: what made
// the prompt, as its provenance says.
func resultHeaders(w http.ResponseWriter, p engine.Provenance) {
	h := w.Header()
	libraryHeaders(h, p)
	h.Set("X-Promptsmith-Variant-Hash", p.Variant)
}

func libraryHeaders(h http.Header, p engine.Provenance) {
	h.Set("X-Promptsmith-Library", p.Short)
	h.Set("X-Promptsmith-Library-Hash", p.Library)
	h.Set("X-Promptsmith-Version", p.Version)
}

// staleValue is why an answer is stale, as its header says it: the
// error's position and reason, on one line of printable ASCII (any other
// character escaped as \uXXXX), cut to maxStaleValue bytes.
func staleValue(e *engine.Error) string {
	s := strings.Join(strings.Fields(e.Reason), " ")
	if s == "" {
		s = "the working copy's version does not load"
	}
	if e.Position != "" {
		s = e.Position + ": " + s
	}
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= maxStaleValue {
			b.WriteString("...")
			break
		}
		if r >= 0x20 && r < 0x7f {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRuneToASCII(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// served is a Result as the API answers it: the engine's, and why it is
// stale when it is made from a version of the variant that is not the
// working copy's.
type served struct {
	*engine.Result
	Stale *engine.Error `json:"stale,omitempty"`
}
