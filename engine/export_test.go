package engine

// FileHolds exposes fileHolds to the black-box tests.
var FileHolds = fileHolds
