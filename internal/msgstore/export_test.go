package msgstore

// ThreadsInOrderQuery exposes ThreadsInOrder's statement to the black-box
// tests, which count the rows it reads.
func (s *Store) ThreadsInOrderQuery(resourceID string, ids []string) (string, []any, error) {
	return s.threadsInOrderQuery(resourceID, ids)
}
