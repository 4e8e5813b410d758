package tokens

import (
	_ "embed" // the rank tables
	"fmt"

	"github.com/promptsmith/promptsmith/tokens/internal/ranktable"
)

//go:generate go run ./internal/rankgen cl100k_base o200k_base p50k_base r50k_base

// The encodings' ranks as hash tables laid out by go generate
// (internal/rankgen) from the published rank files: an encoding loads
// without parsing, and a count reads only the slots its lookups touch.
// Tokens of up to seven bytes, most lookups (the pairs a merge tries, the
// short words that are tokens whole), are packed into a number and found
// with one multiplication and a probe or two, without hashing a string.
//
//go:embed ranktables/cl100k_base.ranks
var cl100kRanks string

//go:embed ranktables/o200k_base.ranks
var o200kRanks string

//go:embed ranktables/p50k_base.ranks
var p50kRanks string

//go:embed ranktables/r50k_base.ranks
var r50kRanks string

// embeddedRanks is the embedded table of an encoding, "" for none.
func embeddedRanks(encoding string) string {
	switch encoding {
	case "cl100k_base":
		return cl100kRanks
	case "o200k_base":
		return o200kRanks
	case "p50k_base":
		return p50kRanks
	case "r50k_base":
		return r50kRanks
	}
	return ""
}

// ranks finds the rank of a token.
type ranks struct{ table *ranktable.Table }

func openRanks(encoding string) (*ranks, error) {
	t, err := ranktable.Open(embeddedRanks(encoding))
	if err != nil {
		return nil, fmt.Errorf("token encoding %s: %w", encoding, err)
	}
	return &ranks{t}, nil
}

// rank is the rank of token s, and whether s is a token.
func (r *ranks) rank(s string) (int32, bool) { return r.table.Rank(s) }
