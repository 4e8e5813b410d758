// Package tokens counts the tokens of a prompt with the byte-pair encodings
// of OpenAI's models, offline: the encodings are compiled into the binary.
package tokens

import (
	"fmt"
	"strings"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

// Encodings are the names New accepts.
var Encodings = []string{"cl100k_base", "o200k_base", "p50k_base", "r50k_base"}

var setLoader sync.Once

// Counter counts tokens with one encoding. It is safe for concurrent use,
// as the encoder is: counts run in parallel, never one at a time.
type Counter struct {
	enc *tiktoken.Tiktoken
}

// New loads an encoding by name, e.g. "o200k_base" (GPT-4o and later) or
// "cl100k_base" (GPT-4, GPT-3.5).
func New(encoding string) (*Counter, error) {
	setLoader.Do(func() { tiktoken.SetBpeLoader(loader.NewOfflineLoader()) })
	known := false
	for _, e := range Encodings {
		known = known || e == encoding
	}
	if !known {
		return nil, fmt.Errorf("unknown token encoding %q; the encodings are: %s", encoding, strings.Join(Encodings, ", "))
	}
	enc, err := tiktoken.GetEncoding(encoding)
	if err != nil {
		return nil, fmt.Errorf("loading token encoding %s: %w", encoding, err)
	}
	return &Counter{enc: enc}, nil
}

// CountTokens returns the number of tokens text encodes to. Special-token
// text in a prompt is counted as ordinary text, as a model would receive it.
func (c *Counter) CountTokens(text string) int {
	return len(c.enc.EncodeOrdinary(text))
}
