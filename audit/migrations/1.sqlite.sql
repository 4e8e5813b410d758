CREATE TABLE prompts (
	hash          TEXT PRIMARY KEY,         -- address: hash of own bytes and embedded addresses
	sha256        TEXT NOT NULL DEFAULT '', -- hex SHA-256 of the whole text, when known
	size          INTEGER NOT NULL,         -- length of the whole text in bytes
	variant       TEXT NOT NULL DEFAULT '', -- empty for a prompt known only as embedded
	library       TEXT NOT NULL DEFAULT '', -- provenance: library hash
	library_short TEXT NOT NULL DEFAULT '',
	variant_hash  TEXT NOT NULL DEFAULT '',
	version       TEXT NOT NULL DEFAULT '',
	recorded      TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX prompts_sha256 ON prompts(sha256) WHERE sha256 <> '';
CREATE TABLE parts (
	hash   TEXT NOT NULL,             -- the prompt
	seq    INTEGER NOT NULL,          -- 0, 1, …: parts in text order
	bytes  BLOB NOT NULL,             -- the prompt's own bytes before child
	child  TEXT NOT NULL DEFAULT '',  -- address of the prompt embedded after bytes; '' on the last part
	region TEXT NOT NULL DEFAULT '',  -- the verbatim region child fills
	PRIMARY KEY (hash, seq)
);
CREATE TABLE ids (
	name  TEXT NOT NULL,
	value TEXT NOT NULL,
	hash  TEXT NOT NULL,
	PRIMARY KEY (name, value, hash)
) WITHOUT ROWID;
CREATE INDEX ids_value ON ids(value);
CREATE INDEX ids_hash ON ids(hash);
