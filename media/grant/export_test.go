package grant

// ObjectKey is objectKey, for the tests that write objects themselves.
var ObjectKey = objectKey
