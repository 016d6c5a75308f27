/**
 * The header "Refresh" of every screen. Loading the next page of an infinite list is not a
 * refresh, so it does not relabel the button, though the button stays disabled meanwhile.
 */
interface Refreshable {
  refetch: () => Promise<unknown>;
  isFetching: boolean;
  isFetchingNextPage?: boolean;
}

export function RefreshButton({ query }: { query: Refreshable }) {
  const refreshing = query.isFetching && !query.isFetchingNextPage;
  return (
    <button type="button" className="btn btn-small" onClick={() => void query.refetch()} disabled={query.isFetching}>
      {refreshing ? 'Refreshing…' : 'Refresh'}
    </button>
  );
}
