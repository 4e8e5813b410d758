package audit

import (
	"context"
	"database/sql"
	"math"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/promptsmith/promptsmith/internal/testing/testpostgres"
)

// TestBinaryArrays: the arrays the store sends in PostgreSQL's binary
// format read back as the values encoded, at the edges: empty arrays,
// empty strings, multibyte text, bytes that are not text, and the ends
// of the integer ranges.
func TestBinaryArrays(t *testing.T) {
	target := testpostgres.Schema(t, "audit_wire_")
	db, err := sql.Open("pgx", target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	texts := []string{"", "a", "é ü 日本", "with \"quotes\", {braces} and \\ backslash", "NULL"}
	bytes := []string{"", "\x00\x01\xff", "text"}
	int8s := []int64{0, -1, math.MaxInt64, math.MinInt64}
	int4s := []int32{0, -1, math.MaxInt32, math.MinInt32}
	var p params
	p.texts(len(texts), func(i int) string { return texts[i] })
	p.byteas(len(bytes), func(i int) string { return bytes[i] })
	p.int8s(len(int8s), func(i int) int64 { return int8s[i] })
	p.int4s(len(int4s), func(i int) int32 { return int4s[i] })
	p.texts(0, nil)
	p.byteas(0, nil)
	p.int8s(0, nil)
	p.int4s(0, nil)
	p.scalar(oidText, "scalar")
	p.scalar(oidInt8, int8Text(math.MinInt64))
	batch := &pgconn.Batch{}
	p.queue(batch, `SELECT $1::text[] = ARRAY['', 'a', 'é ü 日本', 'with "quotes", {braces} and \ backslash', 'NULL']::text[],
		$2::bytea[] = ARRAY['\x'::bytea, '\x0001ff'::bytea, 'text'::bytea],
		$3::int8[] = ARRAY[0, -1, 9223372036854775807, -9223372036854775808]::int8[],
		$4::int4[] = ARRAY[0, -1, 2147483647, -2147483648]::int4[],
		cardinality($5::text[]) = 0 AND cardinality($6::bytea[]) = 0 AND cardinality($7::int8[]) = 0 AND cardinality($8::int4[]) = 0,
		$9::text = 'scalar' AND $10::int8 = -9223372036854775808`)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		res, err := dc.(*stdlib.Conn).Conn().PgConn().ExecBatch(context.Background(), batch).ReadAll()
		if err != nil {
			return err
		}
		if len(res) != 1 || len(res[0].Rows) != 1 {
			t.Fatalf("%d results", len(res))
		}
		for i, v := range res[0].Rows[0] {
			if string(v) != "t" {
				t.Errorf("column %d: %q, want t", i+1, v)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
