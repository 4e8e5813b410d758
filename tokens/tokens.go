// Package tokens counts the tokens of a prompt with the byte-pair encodings
// of OpenAI's models, offline: the encodings are compiled into the binary.
//
// A count is the length of what tiktoken's encoder returns for the text,
// exactly, whatever the text, long pieces included: nothing is cut or
// estimated. The text is cut into pieces as the encoding's regular
// expression cuts it (words, numbers, runs of punctuation, runs of white
// space) and each piece is merged byte pair by byte pair, lowest rank first
// and leftmost first among equal ranks, as tiktoken does. Both steps are
// this package's own, for speed: the pieces come from a scanner written for
// each pattern (scan.go), which reads the text once where a backtracking
// regular expression engine tried the alternatives at every character;
// the ranks are hash tables laid out at build time and embedded, so an
// encoding loads without parsing and a lookup of up to seven bytes hashes
// no string (ranks.go);
// and the merge keeps the candidate pairs in a queue by rank (merge.go), in
// time about linear in a piece's length where rescanning the piece after
// every merge, as tiktoken does, is quadratic (a 256 KiB word takes
// tiktoken over a minute).
//
// The tests hold the pieces to the patterns run by regexp2 and the counts
// to tiktoken-go's, for every encoding.
package tokens

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// Encodings are the names New accepts, sorted.
func Encodings() []string { return []string{"cl100k_base", "o200k_base", "p50k_base", "r50k_base"} }

// Counter counts tokens with one encoding. It is safe for concurrent use:
// its ranks and tables are only read, and each count has its own scratch
// space.
type Counter struct {
	ranks   *ranks
	scan    scanner
	classes *classes
	scratch sync.Pool // *merger
}

// New loads an encoding by name, e.g. "o200k_base" (GPT-4o and later) or
// "cl100k_base" (GPT-4, GPT-3.5).
func New(encoding string) (*Counter, error) {
	scan := scannerFor(encoding)
	if scan == nil {
		return nil, fmt.Errorf("unknown token encoding %q; the encodings are: %s", encoding, strings.Join(Encodings(), ", "))
	}
	r, err := openRanks(encoding)
	if err != nil {
		return nil, err
	}
	return &Counter{ranks: r, scan: scan, classes: asciiClasses()}, nil
}

// CountTokens returns the number of tokens text encodes to. Special-token
// text in a prompt is counted as ordinary text, as a model would receive it.
// It takes time about linear in the text's length, and allocates nothing
// once the counter has counted a piece as long (but for pieces with bytes
// that are not UTF-8, and pieces over 64 KiB, whose scratch is not kept).
func (c *Counter) CountTokens(text string) int {
	valid := utf8.ValidString(text)
	var mg *merger
	n := 0
	for i := 0; i < len(text); {
		end := c.scan(c.classes, text, i)
		piece := text[i:end]
		i = end
		if len(piece) <= 1 {
			n += len(piece)
			continue
		}
		if _, ok := c.ranks.rank(piece); ok {
			n++
			continue
		}
		if !valid && !utf8.ValidString(piece) {
			piece = string([]rune(piece)) // each invalid byte is U+FFFD to the encoder, as to tiktoken
			if _, ok := c.ranks.rank(piece); ok {
				n++
				continue
			}
		}
		if mg == nil {
			mg = c.merger()
			defer c.release(mg)
		}
		n += mg.merge(piece, c.ranks)
	}
	return n
}

func (c *Counter) merger() *merger {
	if mg, _ := c.scratch.Get().(*merger); mg != nil {
		return mg
	}
	return &merger{}
}

// release keeps a merger's scratch for the next count, but for a huge
// piece's.
func (c *Counter) release(mg *merger) {
	if cap(mg.next) <= 1<<16 {
		c.scratch.Put(mg)
	}
}
