// Package repr is the server's representations of the engine's
// resources: the content codings they are kept in (identity, gzip,
// brotli, with their ETags and header values), the DEFLATE fragments a
// list joins without compressing again, and the `fields=` and `expand=`
// parameters. What it derives from a resource it keeps with the resource
// (engine.Resource.Kept), so a resource is compressed or projected once,
// whatever the number of requests; the engine knows none of it.
package repr
