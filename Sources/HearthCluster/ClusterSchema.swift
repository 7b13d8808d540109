/// The cluster's tables in PostgreSQL, created on first use (`ClusterDirectory.open`).
///
/// - `hearth_nodes`: every node that ever joined, with the URL other nodes reach it at and its
///   last heartbeat (PostgreSQL's clock): a node is alive while its heartbeat is younger than
///   the lease time.
/// - `hearth_namespaces`: one row per namespace: its owner and lease (`lease_until`, PostgreSQL's
///   clock), its `epoch` (one more at every takeover: the fence) and `lsn`, the position of its
///   last changelog entry.
/// - `hearth_changelog`: the namespace's history, the truth: each entry one batch the owner
///   committed (namespace-relative keys), at positions 1, 2, 3, … with the epoch of the owner
///   that wrote it. A node's LevelDB is a cache of it.
/// - `hearth_snapshots`, `hearth_snapshot_heads`: a namespace's whole state at one changelog
///   position (its newest head names it: position, epoch, how many chunks), so that the
///   changelog up to there can go and a node far behind installs it instead of replaying.
/// - `hearth_shared_log`: the logs of what is the cluster's rather than a namespace's (the
///   accounts: stream `accounts`): batches at positions 1, 2, 3, … per stream, each appended by
///   whichever node got its position first (the primary key refuses the others). Stream
///   `storage` holds the storage catalog's batches (objects' metadata); `rules/<ns>` and
///   `storage-rules` the rules' versions (the newest 20 kept).
/// - `hearth_shared_snapshots`, `hearth_shared_snapshot_heads`: a shared log's whole state at
///   one position (the accounts', the storage catalog's), so that its entries before the
///   previous snapshot can go and a node far behind installs it instead of replaying.
/// - `hearth_object_chunks`: Storage's objects' bytes, in pieces of at most 1 MiB per
///   generation (`data` stored uncompressed: objects are mostly compressed already); a
///   generation's rows are written before the catalog batch that names it is appended, and
///   deleted after the batch that kills it.
/// - `hearth_object_generations`: the last generation handed out (one row): every node takes
///   its next one here, so no two uploads share one.
enum ClusterSchema {
    /// Statements run in order; each is idempotent. The advisory lock keeps two nodes starting
    /// at once from racing on `CREATE TABLE`.
    static let statements: [String] = [
        "SELECT pg_advisory_lock(4826627)",
        """
        CREATE TABLE IF NOT EXISTS hearth_nodes (
            id text PRIMARY KEY,
            url text NOT NULL,
            joined timestamptz NOT NULL DEFAULT clock_timestamp(),
            heartbeat timestamptz NOT NULL DEFAULT clock_timestamp()
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS hearth_namespaces (
            ns text PRIMARY KEY,
            owner text,
            epoch bigint NOT NULL DEFAULT 0,
            lease_until timestamptz,
            lsn bigint NOT NULL DEFAULT 0
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS hearth_changelog (
            ns text NOT NULL,
            lsn bigint NOT NULL,
            epoch bigint NOT NULL,
            batch bytea NOT NULL,
            PRIMARY KEY (ns, lsn)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS hearth_shared_log (
            stream text NOT NULL,
            position bigint NOT NULL,
            node text NOT NULL,
            written timestamptz NOT NULL DEFAULT clock_timestamp(),
            batch bytea NOT NULL,
            PRIMARY KEY (stream, position)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS hearth_object_chunks (
            generation bigint NOT NULL,
            chunk integer NOT NULL,
            written timestamptz NOT NULL DEFAULT clock_timestamp(),
            data bytea NOT NULL,
            PRIMARY KEY (generation, chunk)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS hearth_object_generations (
            id integer PRIMARY KEY,
            last bigint NOT NULL
        )
        """,
        "ALTER TABLE hearth_object_chunks ALTER COLUMN data SET STORAGE EXTERNAL",
        """
        CREATE TABLE IF NOT EXISTS hearth_snapshots (
            ns text NOT NULL,
            lsn bigint NOT NULL,
            chunk integer NOT NULL,
            data bytea NOT NULL,
            PRIMARY KEY (ns, lsn, chunk)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS hearth_snapshot_heads (
            ns text PRIMARY KEY,
            lsn bigint NOT NULL,
            epoch bigint NOT NULL,
            chunks integer NOT NULL,
            taken timestamptz NOT NULL DEFAULT clock_timestamp()
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS hearth_shared_snapshots (
            stream text NOT NULL,
            position bigint NOT NULL,
            chunk integer NOT NULL,
            data bytea NOT NULL,
            PRIMARY KEY (stream, position, chunk)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS hearth_shared_snapshot_heads (
            stream text PRIMARY KEY,
            position bigint NOT NULL,
            chunks integer NOT NULL,
            taken timestamptz NOT NULL DEFAULT clock_timestamp()
        )
        """,
        "SELECT pg_advisory_unlock(4826627)",
    ]
}
