package tokens

import (
	"bytes"
	"testing"

	loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/promptsmith/promptsmith/tokens/internal/ranktable"
)

// TestRankTablesArePublished: each embedded rank table holds exactly the
// ranks of its published rank file, and is the table go generate builds
// from that file today, byte for byte.
func TestRankTablesArePublished(t *testing.T) {
	t.Parallel()
	for _, enc := range Encodings() {
		t.Run(enc, func(t *testing.T) {
			published, err := loader.NewOfflineLoader().LoadTiktokenBpe(enc + ".tiktoken")
			if err != nil {
				t.Fatal(err)
			}
			built, err := ranktable.Build(published)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(built, []byte(embeddedRanks(enc))) {
				t.Fatalf("ranktables/%s.ranks is not what go generate builds from the published ranks; run go generate ./tokens", enc)
			}
			table, err := ranktable.Open(embeddedRanks(enc))
			if err != nil {
				t.Fatal(err)
			}
			if table.Len() != len(published) {
				t.Fatalf("%d tokens, the published file has %d", table.Len(), len(published))
			}
			seen := 0
			table.All(func(tok string, rank int32) {
				seen++
				if want, ok := published[tok]; !ok || int32(want) != rank {
					t.Errorf("token %q: rank %d, published %d (%v)", tok, rank, want, ok)
				}
			})
			if seen != len(published) {
				t.Fatalf("the table lists %d tokens, the published file %d", seen, len(published))
			}
			for tok, want := range published {
				if got, ok := table.Rank(tok); !ok || got != int32(want) {
					t.Fatalf("Rank(%q) = %d, %v; published %d", tok, got, ok, want)
				}
			}
			for _, absent := range []string{"\x00\x00\x00\x00\x00\x00\x00\x00\x00", "zzzzzzzzzzzzzzzzzzzzzzzzzqq"} {
				if _, ok := table.Rank(absent); ok {
					t.Errorf("%q is not a token, but the table finds it", absent)
				}
			}
		})
	}
}

// TestRankTableRefusesDamage: a table whose bytes do not match its header
// is refused when opened, not read past its end.
func TestRankTableRefusesDamage(t *testing.T) {
	t.Parallel()
	good := embeddedRanks("r50k_base")
	for name, data := range map[string]string{
		"empty":     "",
		"magic":     "not a table at all, but long enough to hold a header",
		"truncated": good[:len(good)-1],
		"longer":    good + "x",
	} {
		if _, err := ranktable.Open(data); err == nil {
			t.Errorf("%s: opened", name)
		}
	}
}
