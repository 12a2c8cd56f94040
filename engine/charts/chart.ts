/**
 * A bar chart as data, and the Vega-Lite specification drawn from it. The specification is built here from the
 * chart's fields and inline values only, so no chart can name a URL for the renderer to fetch (and the renderer's
 * loader refuses every URL besides: render.ts).
 */
export interface BarChart {
  title: string;
  /** a sentence a screen reader says for the picture (the table under it holds the values) */
  description: string;
  x: { field: string; title: string };
  y: { field: string; title: string };
  /** stacked bars, one colour per value of this field, in this order */
  series?: { field: string; title: string; order: readonly string[] };
  data: readonly Record<string, string | number>[];
  width?: number;
  height?: number;
  /**
   * The whole picture's width, axes, legend and padding included, the plot narrowed to fit (overrides `width`): a
   * mail's image is shown at a fixed width, so its text is drawn at the size it was laid out in.
   */
  outerWidth?: number;
}

/** Colours that keep 3:1 against white and each other's neighbours (Okabe–Ito, for colour-blind readers). */
const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00'];

export function vegaLiteSpec(chart: BarChart): Record<string, unknown> {
  const series = chart.series;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: chart.title,
    description: chart.description,
    width: chart.outerWidth ?? chart.width ?? 560,
    height: chart.height ?? 220,
    ...(chart.outerWidth ? { autosize: { type: 'fit-x', contains: 'padding' } } : {}),
    background: 'white',
    data: { values: chart.data.map((d) => ({ ...d })) },
    mark: { type: 'bar' },
    encoding: {
      x: { field: chart.x.field, type: 'ordinal', title: chart.x.title, sort: null, axis: { labelAngle: -45, labelLimit: 160 } },
      y: { field: chart.y.field, type: 'quantitative', title: chart.y.title, stack: series ? 'zero' : null, axis: { tickMinStep: 1 } },
      ...(series
        ? {
          color: { field: series.field, type: 'nominal', title: series.title, scale: { domain: [...series.order], range: PALETTE.slice(0, series.order.length) } },
          order: { field: '__order', type: 'quantitative' },
        }
        : { color: { value: PALETTE[0] } }),
    },
    ...(series ? { transform: [{ calculate: `indexof(${JSON.stringify(series.order)}, datum[${JSON.stringify(series.field)}])`, as: '__order' }] } : {}),
    config: { font: 'system-ui, sans-serif', axis: { labelFontSize: 11, titleFontSize: 12 }, title: { fontSize: 14 } },
  };
}
