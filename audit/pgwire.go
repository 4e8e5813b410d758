package audit

import (
	"encoding/binary"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
)

// The PostgreSQL backend sends a transaction's statements as one pipeline
// of unnamed statements whose parameters carry their types, the arrays in
// PostgreSQL's binary format: what a batch of records costs to encode is
// a copy of its bytes, with no quoting or escaping (bytea as text is hex,
// twice its size), and the server parses no array text either.

// OIDs of the parameter types the store sends (pg_type).
const (
	oidInt8       = 20
	oidInt4       = 23
	oidText       = 25
	oidBytea      = 17
	oidByteaArray = 1001
	oidInt4Array  = 1007
	oidTextArray  = 1009
	oidInt8Array  = 1016
)

// params are one statement's parameters.
type params struct {
	values  [][]byte
	oids    []uint32
	formats []int16
}

// scalar adds a parameter in text format, typed oid.
func (p *params) scalar(oid uint32, text string) {
	p.values, p.oids, p.formats = append(p.values, []byte(text)), append(p.oids, oid), append(p.formats, 0)
}

// array adds a one-dimensional array of n elements of type elem, typed
// oid, whose i-th element's binary form is at(i): strings for text and
// bytea, which share one.
func (p *params) array(oid, elem uint32, n int, at func(i int) string) {
	size := 20 + 4*n
	for i := range n {
		size += len(at(i))
	}
	b := make([]byte, 0, size)
	b = binaryArrayHeader(b, elem, n)
	for i := range n {
		s := at(i)
		b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	p.values, p.oids, p.formats = append(p.values, b), append(p.oids, oid), append(p.formats, 1)
}

// texts adds a text[] parameter.
func (p *params) texts(n int, at func(i int) string) { p.array(oidTextArray, oidText, n, at) }

// byteas adds a bytea[] parameter.
func (p *params) byteas(n int, at func(i int) string) { p.array(oidByteaArray, oidBytea, n, at) }

// int8s adds an int8[] parameter.
func (p *params) int8s(n int, at func(i int) int64) {
	p.fixedArray(oidInt8Array, oidInt8, n, 8, func(b []byte, i int) []byte { return binary.BigEndian.AppendUint64(b, uint64(at(i))) })
}

// int4s adds an int4[] parameter.
func (p *params) int4s(n int, at func(i int) int32) {
	p.fixedArray(oidInt4Array, oidInt4, n, 4, func(b []byte, i int) []byte { return binary.BigEndian.AppendUint32(b, uint32(at(i))) })
}

// fixedArray adds a one-dimensional array of n elements of type elem,
// typed oid, each size bytes long, which put appends for element i.
func (p *params) fixedArray(oid, elem uint32, n, size int, put func(b []byte, i int) []byte) {
	b := make([]byte, 0, 20+(4+size)*n)
	b = binaryArrayHeader(b, elem, n)
	for i := range n {
		b = binary.BigEndian.AppendUint32(b, uint32(size))
		b = put(b, i)
	}
	p.values, p.oids, p.formats = append(p.values, b), append(p.oids, oid), append(p.formats, 1)
}

// binaryArrayHeader appends the header of a one-dimensional array without
// nulls (array_recv): an empty array has no dimension.
func binaryArrayHeader(b []byte, elem uint32, n int) []byte {
	if n == 0 {
		b = binary.BigEndian.AppendUint32(b, 0) // dimensions
		b = binary.BigEndian.AppendUint32(b, 0) // no nulls
		return binary.BigEndian.AppendUint32(b, elem)
	}
	b = binary.BigEndian.AppendUint32(b, 1)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, elem)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	return binary.BigEndian.AppendUint32(b, 1) // lower bound
}

// queue adds the statement q with p to batch, its results in text format.
func (p *params) queue(batch *pgconn.Batch, q string) {
	batch.ExecParams(q, p.values, p.oids, p.formats, nil)
}

// int8Text is v as a text-format int8 parameter.
func int8Text(v int64) string { return strconv.FormatInt(v, 10) }
