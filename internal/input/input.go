// Package input decodes the JSON or YAML document a prompt is rendered from
// into a tree of values, remembering what Go maps forget: the order of each
// object's keys (KeyOrder) and where each value was written (Position).
//
// The tree holds map[string]any, []any, string, int64, float64, bool and nil,
// whichever of JSON and YAML it came from. JSON is read by the package's own
// parser; YAML by a reader of the YAML people write (readYAML), and by
// yaml.v3 for the rest and for every error. The package also says how such
// values are written back as JSON (AppendJSON), hashed (Canonical, Key) and
// compared (Equal): one definition each, used by every stage.
package input

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/problem"
	"gopkg.in/yaml.v3"
)

// Input is a document to render: JSON or YAML bytes and a name for error
// positions ("stdin", a file path, "example basic").
type Input struct {
	Name string
	Data []byte
}

// Document is a decoded input whose objects' key order is recorded.
type Document struct {
	Input
	Root  map[string]any
	order *KeyOrder
	held  []map[string]any // every object recorded, kept alive while its entry stands
	// positionMu guards what Position keeps between calls: a document,
	// a schema's among them, is read by several goroutines at once (a
	// language server's checker and its requests).
	positionMu sync.Mutex
	// yamlTree is a YAML input's node tree, parsed on the first Position;
	// jsonSkips the ends of the large values of a JSON input it skipped.
	yamlTree  *yaml.Node
	jsonSkips map[int]int
	lastLine  lineMark // the line of the last offset Position placed
	maxDepth  int
}

// Decode reads an object: JSON when the input starts with '{', else YAML.
// Both give the same tree; YAML timestamps stay strings, so that validation
// and rendering see what the caller wrote. Key order is recorded in order,
// or, when it is nil, in a KeyOrder of the document's own.
func Decode(in Input, order *KeyOrder) (*Document, error) {
	return Decoder{Order: order}.Decode(in)
}

// Decoder decodes inputs within bounds on their size and nesting, so that
// no input can cost more than its bounds allow.
type Decoder struct {
	// Order records the key order of objects; nil gives each document its own.
	Order *KeyOrder
	// MaxBytes refuses a larger input; 0 sets no bound.
	MaxBytes int
	// MaxDepth refuses values nested deeper; 0 is the parser's own bound,
	// 10,000 levels.
	MaxDepth int
}

// Decode reads an object, as the function Decode does, within the bounds.
func (dc Decoder) Decode(in Input) (*Document, error) {
	return dc.DecodeContext(context.Background(), in)
}

// DecodeContext is Decode within ctx as well: a YAML input whose aliases
// take long to expand stops once ctx is done, with ctx's error.
func (dc Decoder) DecodeContext(ctx context.Context, in Input) (*Document, error) {
	if dc.MaxBytes > 0 && len(in.Data) > dc.MaxBytes {
		return nil, (&problem.Error{Kind: problem.KindInput, Position: in.Name,
			Reason: fmt.Sprintf("the input is %s, over the limit of %s", phrase.Size(len(in.Data)), phrase.Size(dc.MaxBytes))}).
			Hint("send a smaller input, or raise the limit (render's --max-input, the engine's Limits.InputBytes)")
	}
	d, root, err := decode(ctx, in, dc.Order, dc.MaxDepth, textBound(dc.MaxBytes, len(in.Data)))
	if err != nil {
		return nil, err
	}
	m, ok := root.(map[string]any)
	if !ok {
		d.Release()
		return nil, (&problem.Error{Kind: problem.KindInput, Position: in.Name,
			Reason: fmt.Sprintf("the input must be an object, got %s", TypeName(root))}).
			Hint("pass a JSON object ({...}) or a YAML mapping (key: value)")
	}
	d.Root = m
	return d, nil
}

// DecodeJSON reads one JSON value of any type, not only an object; its
// objects' order is recorded in the document, which it returns with it.
func DecodeJSON(in Input, order *KeyOrder) (any, *Document, error) {
	if order == nil {
		order = &KeyOrder{}
	}
	d := &Document{Input: in, order: order, maxDepth: maxDepth}
	trimmed := bytes.TrimLeft(in.Data, " \t\r\n\ufeff")
	root, err := d.decodeJSON(in.Data, len(in.Data)-len(trimmed))
	if err != nil {
		d.Release()
		return nil, nil, err
	}
	return root, d, nil
}

// maxDepth is the parser's own bound on nesting.
const maxDepth = 10000

// expansion is how many times its size limit a YAML input may expand to
// through aliases, in bytes of text (strings and keys): an alias shares its
// value's text, but whatever reads the tree (validation, hashing, a
// template's range) reads it once per alias. 9,900 aliases of a 1 MiB
// string are 10 GB to read for 1 MB of input.
const expansion = 4

// textBound is how many bytes of text an input of n bytes may expand to:
// expansion times its limit, or without a limit, times the larger of its
// size and 4 MiB.
func textBound(limit, n int) int {
	if limit <= 0 {
		limit = max(n, 4<<20)
	}
	return expansion * limit
}

func decode(ctx context.Context, in Input, order *KeyOrder, depth, text int) (*Document, any, error) {
	if order == nil {
		order = &KeyOrder{}
	}
	if depth <= 0 || depth > maxDepth {
		depth = maxDepth
	}
	d := &Document{Input: in, order: order, maxDepth: depth}
	trimmed := bytes.TrimLeft(in.Data, " \t\r\n\ufeff")
	var root any
	var err error
	switch {
	case len(trimmed) > 0 && trimmed[0] == '{':
		root, err = d.decodeJSON(in.Data, len(in.Data)-len(trimmed))
	case len(trimmed) > 0 && trimmed[0] == '[':
		// A JSON array, or a YAML flow sequence: no input either way, but
		// read as JSON first, so that one nested past the depth bound is
		// refused for that, at its pointer, as an object is, not by the
		// YAML parser's own bound as invalid YAML.
		root, err = d.decodeJSON(in.Data, len(in.Data)-len(trimmed))
		if _, syntax := errors.AsType[*jsonSyntaxError](err); syntax {
			d.Release()
			d = &Document{Input: in, order: order, maxDepth: depth}
			root, err = d.decodeYAML(ctx, in.Data, text)
		}
	default:
		root, err = d.decodeYAML(ctx, in.Data, text)
	}
	if err != nil {
		d.Release()
		return nil, nil, err
	}
	return d, root, nil
}

// Locate sets the Position of err, and of the problems it lists, from the
// Field they name, where they have none yet.
func (d *Document) Locate(err error) error {
	var e *problem.Error
	if !errors.As(err, &e) {
		return err
	}
	for _, x := range append([]*problem.Error{e}, e.Also...) {
		if x.Position == "" && x.Kind == problem.KindInput && (x.Field == "" || x.Field[0] == '/') {
			x.Position = d.Position(x.Field)
		}
	}
	return err
}

// TypeName names the kind of a value as an error message says it.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, float64, int:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

// tooDeep is the error for a value nested deeper than the bound.
func tooDeep(ptr string, limit int) *problem.Error {
	return (&problem.Error{Kind: problem.KindInput, Field: ptr,
		Reason: fmt.Sprintf("the input nests deeper than %d levels", limit)}).
		Hint("flatten the structure; a prompt's input never needs that depth (the limit is render's --max-depth, the engine's Limits.Depth)")
}
