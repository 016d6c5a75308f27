/**
 * An id that opens its record: the server says what the id names (runtime.lookup, as "go to id"
 * does) when it is followed, so a list of ids costs nothing until one is clicked. An id with no
 * page (a token, or one a reset removed) says so in place.
 */
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { explainError } from '../api/error-messages';
import { lookupId } from '../api/lookup';

export function IdLink({ id }: { id: string }) {
  const navigate = useNavigate();
  const [answer, setAnswer] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const open = async () => {
    setBusy(true);
    try {
      const hit = await lookupId(id);
      if (!hit) setAnswer('no record has this id now (a reset may have removed it)');
      else if (!hit.path) setAnswer(hit.text);
      else navigate(hit.path);
    } catch (err) {
      setAnswer(explainError(err).title);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className="id-link">
      <button type="button" className="link-button mono" onClick={() => void open()} disabled={busy} title={`Open ${id}`} data-testid="id-link">
        {id}
      </button>
      {answer && (
        <span className="muted small" role="status">
          {' '}
          {answer}
        </span>
      )}
    </span>
  );
}
