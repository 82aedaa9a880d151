package main

// CEL's timestamp functions take a time zone by its IANA name (self.at.getHours('Europe/Paris')), which Go looks up
// in the system's zone database: kube-apiserver on Linux reads /usr/share/zoneinfo, but WebAssembly under WASI sees
// no such directory, and without the database compiled in, every such rule would fail with "unknown time zone"
// where the API server answers. It adds about 450 kB.
import _ "time/tzdata"
