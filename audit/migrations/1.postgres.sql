CREATE TABLE prompts (
	hash          TEXT COLLATE "C" PRIMARY KEY,
	sha256        TEXT COLLATE "C" NOT NULL DEFAULT '',
	size          BIGINT NOT NULL,
	variant       TEXT NOT NULL DEFAULT '',
	library       TEXT NOT NULL DEFAULT '',
	library_short TEXT NOT NULL DEFAULT '',
	variant_hash  TEXT NOT NULL DEFAULT '',
	version       TEXT NOT NULL DEFAULT '',
	recorded      TEXT NOT NULL
);
CREATE INDEX prompts_sha256 ON prompts(sha256) WHERE sha256 <> '';
CREATE TABLE parts (
	hash   TEXT COLLATE "C" NOT NULL,
	seq    INTEGER NOT NULL,
	bytes  BYTEA NOT NULL,
	child  TEXT COLLATE "C" NOT NULL DEFAULT '',
	region TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (hash, seq)
);
CREATE TABLE ids (
	name  TEXT NOT NULL,
	value TEXT NOT NULL,
	hash  TEXT COLLATE "C" NOT NULL,
	PRIMARY KEY (name, value, hash)
);
CREATE INDEX ids_value ON ids(value);
CREATE INDEX ids_hash ON ids(hash);
