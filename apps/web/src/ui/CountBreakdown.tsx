/** How many of a set fall under each name, biggest first: the first eight, then one "N more" row. */
export function CountBreakdown({ title, rows, className }: { title: string; rows: readonly (readonly [string, number])[]; className: string }) {
  const shown = rows.slice(0, 8);
  const rest = rows.slice(8);
  return (
    <table className={className}>
      <caption>{title}</caption>
      <tbody>
        {shown.map(([name, count]) => (
          <tr key={name}>
            <th scope="row" className="mono" title={name}>
              {name}
            </th>
            <td className="num">{count.toLocaleString()}</td>
          </tr>
        ))}
        {rest.length > 0 && (
          <tr>
            <th scope="row" className="muted">
              {rest.length} more
            </th>
            <td className="num">{rest.reduce((n, [, c]) => n + c, 0).toLocaleString()}</td>
          </tr>
        )}
      </tbody>
    </table>
  );
}
