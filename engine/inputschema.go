package engine

import "github.com/promptsmith/promptsmith/internal/schema"

// InputSchema is the schema of the variant's input at its root, for tools
// that explain the fields a template may read (an editor's completion).
func (v *Variant) InputSchema() schema.Node { return v.schema.Root() }
