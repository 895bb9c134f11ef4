// Package transport is what the server does below the routes: connection
// limits (LimitConns), request body deadlines (Guard), the coalescing of a
// response's writes into one segment (CoalescingListener, WriteOnce), the
// client address a proxy names (ClientIP) and the token buckets of the
// rate limits (Limiter). It knows nothing of routes, keys or content.
package transport
