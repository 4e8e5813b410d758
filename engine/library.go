package engine

import (
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/problem"
	"github.com/promptsmith/promptsmith/internal/schema"
)

// Library is a loaded set of variants. It is immutable and safe for
// concurrent renders: templates are parsed and schemas compiled once, when a
// variant is first used. What a render records (the key order of its
// input's objects) lives in the copy of the templates it runs, and only
// while it runs.
type Library struct {
	fsys    fs.FS
	schemas *schema.Set
	// whole is what is known of the whole library once it was read: the
	// hash of the files that make prompts (in provenance) and the error
	// that keeps it from being read (its sizes, a file that cannot be
	// read). A library loaded OnDemand reads it only when asked
	// (Provenance, Err); otherwise Load does.
	wholeMu   sync.Mutex
	wholeDone bool
	wholeErr  error
	// mu guards loading: a variant is loaded on first use, so a command that
	// renders one variant reads and compiles that one.
	mu         sync.Mutex
	loaded     map[string]bool
	variants   map[string]*Variant
	broken     map[string]error // variants that do not load, with why
	stale      map[string]bool  // broken variants served from a previous load (Fallback)
	names      []string
	opts       options
	provenance Provenance
	// schemaKey is the hash of every file under schemas/, part of each
	// variant's key when the library shares variants; "" when it shares
	// none.
	schemaKey string
}

type options struct {
	logger *slog.Logger
	origin string
	limits Limits
	strict bool
	share  *VariantShare
	lazy   bool // OnDemand
}

// Option configures Load.
type Option func(*options)

// WithLogger sends render logs (log/slog) to l. Without it nothing is logged.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// Strict makes Load and LoadDir fail, as LoadStrict does, when any
// variant of the library does not load, rather than keep the broken ones
// for their renders (and Err) to report: for a service that must not
// start on a library it cannot serve whole.
func Strict() Option { return func(o *options) { o.strict = true } }

// OnDemand makes Load (and LoadDir) read what a render needs when it
// needs it: the variant it renders (its sizes checked first), and the
// whole library only when asked for its hash (Provenance) or for every
// variant (Err, LoadStrict). It is for a command that renders a variant
// and exits: a render in a working copy reads the variant, not the
// library. A library that lives on (a server, an editor) must not use it:
// it would read, later, files edited after it was loaded.
func OnDemand() Option { return func(o *options) { o.lazy = true } }

// WithOrigin names where the files came from, so that error positions read as
// paths the author can open (a directory for a working copy).
func WithOrigin(dir string) Option { return func(o *options) { o.origin = dir } }

// Load reads every variant of a library: an fs.FS holding templates/ and schemas/.
func Load(fsys fs.FS, opts ...Option) (*Library, error) {
	lib := &Library{fsys: fsys, loaded: map[string]bool{}, variants: map[string]*Variant{}, broken: map[string]error{}}
	for _, o := range opts {
		o(&lib.opts)
	}
	if lib.opts.logger == nil {
		lib.opts.logger = slog.New(slog.DiscardHandler)
	}
	lib.opts.limits = lib.opts.limits.withDefaults()
	lib.provenance = Provenance{Version: Version()}
	if lib.opts.lazy {
		// Only what every variant needs: the schemas, read whole below.
		if err := lib.checkSizes(fsys, "schemas"); err != nil {
			return nil, err
		}
	} else if err := lib.whole(); err != nil {
		return nil, err
	}
	schemas, err := schema.Load(fsys, lib.opts.origin)
	if err != nil {
		return nil, err
	}
	lib.schemas = schemas
	if lib.opts.share != nil {
		lib.schemaKey = schemaKey(fsys)
	}
	lib.names = variantNames(fsys)
	if len(lib.names) == 0 {
		return nil, (&Error{Kind: KindUsage, Position: lib.label("templates"), Reason: "no variants found"}).
			Hint("a variant is a folder templates/<name>/ with a prompt.yaml manifest")
	}
	if lib.opts.strict {
		if err := lib.Err(); err != nil {
			return nil, err
		}
	}
	return lib, nil
}

// variantNames lists the folders under templates/ that hold a prompt.yaml,
// sorted. A link to a folder is not one, whichever way the library is read:
// a folder read at once (LoadDir) never walks into it, nor does the
// library's hash, so a library read on demand must not serve it either.
func variantNames(fsys fs.FS) []string {
	entries, _ := fs.ReadDir(fsys, "templates")
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := fs.Stat(fsys, path.Join("templates", e.Name(), "prompt.yaml")); err == nil {
			names = append(names, e.Name())
		}
	}
	return names // fs.ReadDir sorts by name
}

// whole reads the whole library once: its sizes, its files and their
// hash. Its error is the library's: a file over the limits, or one that
// cannot be read.
func (lib *Library) whole() error {
	lib.wholeMu.Lock()
	defer lib.wholeMu.Unlock()
	if !lib.wholeDone {
		lib.wholeDone = true
		lib.wholeErr = lib.readWhole()
	}
	return lib.wholeErr
}

func (lib *Library) readWhole() error {
	if err := lib.checkSizes(lib.fsys, "templates", "schemas"); err != nil {
		return err
	}
	files, err := libraryFiles(lib.fsys)
	if err != nil {
		return problem.Template(lib.label("templates"), "cannot list the library: %v", err)
	}
	hash, err := hashFiles(lib.fsys, files)
	if err != nil {
		return problem.Template(lib.label("templates"), "cannot read the library: %v", err)
	}
	lib.provenance.Library, lib.provenance.Short = hash, hash[:12]
	return nil
}

// load loads the named variant if it is not yet. One broken variant does
// not break the others: it is kept with its error, which rendering it,
// Err and LoadStrict report.
func (lib *Library) load(name string) {
	lib.mu.Lock()
	defer lib.mu.Unlock()
	if lib.loaded[name] || !slices.Contains(lib.names, name) {
		return
	}
	lib.loaded[name] = true
	if lib.opts.share == nil {
		// A variant's schema is named for it unless its manifest says
		// otherwise: it compiles while the variant is read. (A library that
		// shares its loads may find the variant loaded by another.)
		lib.schemas.Start(name)
	}
	if lib.opts.lazy { // the whole library's sizes were not checked: the variant's are, before it is read
		if err := lib.checkSizes(lib.fsys, "templates/"+name); err != nil {
			lib.broken[name] = err
			return
		}
	}
	f, err := lib.filesOf("templates/" + name)
	if err != nil {
		lib.broken[name] = err
		return
	}
	lib.variants[name] = newVariant(lib, f)
}

// readVariant loads the variant in dir from the library's files, with
// its hash.
func (lib *Library) readVariant(dir string) (*variantFiles, error) {
	return lib.loadVariant(lib.fsys, dir, lib.schemas)
}

// loadAll loads every variant: what tools that check the whole library
// (lint, test, serve) do up front, to fail fast.
func (lib *Library) loadAll() {
	for _, name := range lib.names {
		lib.load(name)
	}
}

// lookup returns a loaded variant and the error of a broken one.
func (lib *Library) lookup(name string) (*Variant, error) {
	lib.load(name)
	lib.mu.Lock()
	defer lib.mu.Unlock()
	if v := lib.variants[name]; v != nil {
		return v, nil // a variant served from its last good version, too
	}
	return nil, lib.broken[name]
}

// Err reports the variants that do not load: nil when all do, else the
// first one's error, with the others in its Also.
func (lib *Library) Err() error {
	if err := lib.whole(); err != nil {
		return err
	}
	lib.loadAll()
	lib.mu.Lock()
	defer lib.mu.Unlock()
	var all []*Error
	for _, name := range lib.names {
		if err := lib.broken[name]; err != nil {
			e := *AsError(err)
			if e.Variant == "" {
				e.Variant = name
			}
			all = append(all, &e)
		}
	}
	if len(all) == 0 {
		return nil
	}
	first := *all[0]
	first.Also = append(slices.Clone(first.Also), all[1:]...)
	return &first
}

// LoadStrict is Load for tools that must see the whole library work
// (lint, test, the golden tests): any variant that does not load fails it.
func LoadStrict(fsys fs.FS, opts ...Option) (*Library, error) {
	lib, err := Load(fsys, opts...)
	if err != nil {
		return nil, err
	}
	if err := lib.Err(); err != nil {
		return nil, err
	}
	return lib, nil
}

// Root finds the library folder of a working copy: dir holds templates/ and
// schemas/, or is the templates folder itself.
func Root(dir string) (string, error) {
	root := dir
	if _, err := os.Stat(filepath.Join(dir, "templates")); err != nil && filepath.Base(filepath.Clean(dir)) == "templates" {
		root = filepath.Dir(filepath.Clean(dir))
	}
	if _, err := os.Stat(filepath.Join(root, "templates")); err != nil {
		return "", (&Error{Kind: KindUsage, Position: dir, Reason: "no templates/ folder here", Err: err}).
			Hint("point --templates at the folder that holds templates/ and schemas/")
	}
	return root, nil
}

// IsWorkingCopy reports whether dir holds a library working copy: a
// schemas/ folder and a templates/ folder with at least one variant
// (templates/<variant>/prompt.yaml). It is what a tool that is given no
// folder looks for, so that render and the language server find the same
// library from the same place.
func IsWorkingCopy(dir string) bool {
	for _, sub := range []string{"templates", "schemas"} {
		if st, err := os.Stat(filepath.Join(dir, sub)); err != nil || !st.IsDir() {
			return false
		}
	}
	// One manifest is enough: the first is looked for, not every one.
	entries, _ := os.ReadDir(filepath.Join(dir, "templates"))
	for _, e := range entries {
		if _, err := os.Lstat(filepath.Join(dir, "templates", e.Name(), "prompt.yaml")); err == nil {
			return true
		}
	}
	return false
}

// LoadDir loads an author's working copy (see Root). It reads through an
// os.Root, so that nothing outside the library folder is ever read: a
// symbolic link that leads out of it (an example linked to /etc/passwd, a
// template linked to a secret) is refused like a missing file, and the
// variant holding it does not load, instead of the library serving what it
// points at. Links inside the folder work. The folder is read once, into
// memory, and each variant parsed and compiled when first used, from those
// bytes; with OnDemand, a file is read when first needed.
func LoadDir(dir string, opts ...Option) (*Library, error) {
	root, err := Root(dir)
	if err != nil {
		return nil, err
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	opts = append([]Option{WithOrigin(root)}, opts...)
	if o.lazy {
		f, err := openFolder(root, o.limits.withDefaults().FileBytes)
		if err != nil {
			return nil, (&Error{Kind: KindUsage, Position: dir, Reason: "cannot open the library folder: " + err.Error(), Err: err}).
				Hint("point --templates at the folder that holds templates/ and schemas/")
		}
		return Load(f, opts...)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, (&Error{Kind: KindUsage, Position: dir, Reason: "cannot open the library folder: " + err.Error(), Err: err}).
			Hint("point --templates at the folder that holds templates/ and schemas/")
	}
	defer r.Close()
	// Sizes and kinds before any file is read: reading a named pipe would
	// never end, and a file of gigabytes would be read whole before its
	// size refused it.
	probe := &Library{opts: o}
	probe.opts.limits, probe.opts.origin = o.limits.withDefaults(), root
	if err := probe.checkSizes(r.FS(), "templates", "schemas"); err != nil {
		return nil, err
	}
	snap, err := snapshotOf(r.FS())
	if err != nil {
		return nil, (&Error{Kind: KindUsage, Position: dir, Reason: "cannot read the library folder: " + err.Error(), Err: err}).
			Hint("point --templates at the folder that holds templates/ and schemas/")
	}
	return Load(snap, opts...)
}

func (lib *Library) label(p string) string {
	if lib.opts.origin == "" {
		return p
	}
	return filepath.Join(lib.opts.origin, p)
}

// Names lists the variants, sorted.
func (lib *Library) Names() []string { return slices.Clone(lib.names) }

// Variant returns the named variant, the error that keeps it from loading,
// or a usage error that lists the variants there are.
func (lib *Library) Variant(name string) (*Variant, error) {
	if v, err := lib.lookup(name); v != nil || err != nil {
		return v, err
	}
	e := &Error{Kind: KindUsage, Variant: name, Reason: fmt.Sprintf("unknown variant %q", name), Err: ErrUnknownVariant}
	if near := phrase.Closest(name, lib.names); near != "" {
		e.Hint("did you mean %q?", near)
	}
	return nil, e.Hint("the variants are: %s", strings.Join(lib.names, ", "))
}

// Fallback returns lib with each variant that does not load replaced by
// its last good version from prev, when prev has one: a working copy under
// edit keeps serving what worked. Err still reports such a variant, and
// Stale says it is one.
func (lib *Library) Fallback(prev *Library) *Library {
	if lib.Err() == nil || prev == nil {
		return lib
	}
	prev.loadAll()
	out := &Library{fsys: lib.fsys, schemas: lib.schemas, names: lib.names,
		opts: lib.opts, provenance: lib.provenance, schemaKey: lib.schemaKey, wholeDone: true, wholeErr: lib.wholeErr,
		loaded: maps.Clone(lib.loaded), variants: maps.Clone(lib.variants), broken: maps.Clone(lib.broken),
		stale: map[string]bool{}}
	for name := range out.broken {
		prev.mu.Lock()
		v, ok := prev.variants[name]
		prev.mu.Unlock()
		if ok {
			out.variants[name] = v
			out.stale[name] = true
		}
	}
	return out
}

// Stale returns the error of a variant served from its last good version
// (see Fallback), or nil.
func (lib *Library) Stale(name string) error {
	if lib.stale[name] {
		return lib.broken[name]
	}
	return nil
}
