// Package attention holds no code: inference attention over a paged KV
// cache is its three packages, paged (the cache format, its checks and
// what decode and prefill share), decode (one or a few query tokens a
// request against the cache: the op attn_decode) and prefill (a request's
// new tokens, varlen, against the cache: attn_prefill).
package attention
