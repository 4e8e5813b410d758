// Package tokens counts the tokens of a prompt with the byte-pair encodings
// of OpenAI's models, offline: the encodings are compiled into the binary.
//
// A count is the length of what tiktoken-go's EncodeOrdinary returns for the
// text, exactly, whatever the text, long pieces included: nothing is cut or
// estimated, so a count differs from the model's only where tiktoken-go's
// does (its regular expression engine is not OpenAI's). The text is cut
// into pieces by the encoding's regular expression (words, numbers, runs of
// punctuation, runs of white space) and each piece is merged byte pair by
// byte pair, lowest rank first and leftmost first among equal ranks, as
// tiktoken does. Only the merging differs from tiktoken-go's: that one
// rescans the whole piece for its lowest rank after every merge, which
// takes time quadratic in the piece's length (a single 200,000-character
// word took over a minute), where this one keeps the candidate pairs in a
// heap, in n log n. The tests compare the two on every golden prompt and on
// random text, for every encoding.
package tokens

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

// Encodings are the names New accepts.
var Encodings = []string{"cl100k_base", "o200k_base", "p50k_base", "r50k_base"}

// patterns are the encodings' regular expressions, which cut a text into
// the pieces that are merged: the same as tiktoken's, character for
// character.
func pattern(encoding string) string {
	switch encoding {
	case "o200k_base":
		return strings.Join([]string{
			`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
			`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
			`\p{N}{1,3}`,
			` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
			`\s*[\r\n]+`,
			`\s+(?!\S)`,
			`\s+`,
		}, "|")
	case "cl100k_base":
		return `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	case "p50k_base", "r50k_base":
		return `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
	}
	return ""
}

// Counter counts tokens with one encoding. It is safe for concurrent use:
// its ranks and regular expression are only read, and each count has its
// own scratch space.
type Counter struct {
	ranks   map[string]int
	pieces  *regexp2.Regexp
	scratch sync.Pool // *merger
}

// New loads an encoding by name, e.g. "o200k_base" (GPT-4o and later) or
// "cl100k_base" (GPT-4, GPT-3.5).
func New(encoding string) (*Counter, error) {
	pat := pattern(encoding)
	if pat == "" {
		return nil, fmt.Errorf("unknown token encoding %q; the encodings are: %s", encoding, strings.Join(Encodings, ", "))
	}
	ranks, err := loader.NewOfflineLoader().LoadTiktokenBpe(encoding + ".tiktoken")
	if err != nil {
		return nil, fmt.Errorf("loading token encoding %s: %w", encoding, err)
	}
	re, err := regexp2.Compile(pat, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("loading token encoding %s: %w", encoding, err)
	}
	return &Counter{ranks: ranks, pieces: re}, nil
}

// CountTokens returns the number of tokens text encodes to. Special-token
// text in a prompt is counted as ordinary text, as a model would receive it.
// It takes time in n log n of the text's length.
func (c *Counter) CountTokens(text string) int {
	if text == "" {
		return 0
	}
	m, _ := c.pieces.FindStringMatch(text)
	if m == nil {
		return 0
	}
	mg, _ := c.scratch.Get().(*merger)
	if mg == nil {
		mg = &merger{}
	}
	defer func() {
		if cap(mg.next) <= 1<<16 { // a huge piece's scratch is not kept
			c.scratch.Put(mg)
		}
	}()
	n := 0
	// The matches' offsets count runes (an invalid byte is one); the pieces
	// are the text's bytes between them, found by walking the text once
	// alongside.
	at, atRune := 0, 0
	for m != nil {
		for atRune < m.Index {
			_, size := utf8.DecodeRuneInString(text[at:])
			at += size
			atRune++
		}
		start := at
		for atRune < m.Index+m.Length {
			_, size := utf8.DecodeRuneInString(text[at:])
			at += size
			atRune++
		}
		piece := text[start:at]
		if !utf8.ValidString(piece) {
			piece = string([]rune(piece)) // each invalid byte is U+FFFD to the encoder, as to tiktoken
		}
		n += c.count(piece, mg)
		m, _ = c.pieces.FindNextMatch(m)
	}
	return n
}

// count is the number of tokens of one piece.
func (c *Counter) count(piece string, mg *merger) int {
	if len(piece) <= 1 {
		return len(piece)
	}
	if _, ok := c.ranks[piece]; ok {
		return 1
	}
	return mg.merge(piece, c.ranks)
}
