//! Where the nodes of a graph go, computed here so that the page needs no script and the
//! picture is the same on every visit: a force-directed layout (Fruchterman and Reingold's)
//! started from a sunflower spiral, with no randomness, for a whole vault; rings around the
//! page for its neighbourhood.

/// A point of the drawing.
pub type Point = (f64, f64);

/// The golden angle, which spreads points on a spiral evenly.
const GOLDEN: f64 = 2.399_963_229_728_653;

/// How hard every node is pulled to the centre: pages that link nowhere settle round the
/// linked ones, a few edge lengths out, instead of at the edge of the picture.
const GRAVITY: f64 = 1.0;

/// Rounds of the force-directed layout.
const ROUNDS: usize = 150;

/// Positions for `n` nodes joined by `edges` (indexes), inside `width` × `height` with
/// `margin` kept free. Nodes earlier in the order start nearer the centre: put hubs first.
pub fn force(
    n: usize,
    edges: &[(usize, usize)],
    width: f64,
    height: f64,
    margin: f64,
) -> Vec<Point> {
    if n == 0 {
        return Vec::new();
    }
    let k = (width * height / n as f64).sqrt() * 0.75;
    let mut pos: Vec<Point> = (0..n)
        .map(|i| {
            let r = k * 0.5 * (i as f64 + 0.5).sqrt();
            let a = i as f64 * GOLDEN;
            (r * a.cos(), r * a.sin())
        })
        .collect();
    let mut heat = width / 10.0;
    let cool = heat / (ROUNDS as f64 + 1.0);
    let mut shift = vec![(0.0, 0.0); n];
    for _ in 0..ROUNDS {
        shift.iter_mut().for_each(|s| *s = (0.0, 0.0));
        for i in 0..n {
            for j in i + 1..n {
                let (dx, dy) = (pos[i].0 - pos[j].0, pos[i].1 - pos[j].1);
                let d2 = (dx * dx + dy * dy).max(0.01);
                // Repulsion k²/d along the unit vector: k²/d² times the difference.
                let f = k * k / d2;
                shift[i].0 += dx * f;
                shift[i].1 += dy * f;
                shift[j].0 -= dx * f;
                shift[j].1 -= dy * f;
            }
        }
        for &(a, b) in edges {
            if a == b {
                continue;
            }
            let (dx, dy) = (pos[a].0 - pos[b].0, pos[a].1 - pos[b].1);
            let d = (dx * dx + dy * dy).sqrt().max(0.1);
            // Attraction d²/k along the unit vector: d/k times the difference.
            let f = d / k;
            shift[a].0 -= dx * f;
            shift[a].1 -= dy * f;
            shift[b].0 += dx * f;
            shift[b].1 += dy * f;
        }
        for (p, s) in pos.iter_mut().zip(&shift) {
            // A pull to the centre keeps pages that link nowhere from drifting off.
            let (sx, sy) = (s.0 - p.0 * GRAVITY, s.1 - p.1 * GRAVITY);
            let len = (sx * sx + sy * sy).sqrt();
            if len > 0.0 {
                let step = len.min(heat);
                p.0 += sx / len * step;
                p.1 += sy / len * step;
            }
        }
        heat = (heat - cool).max(1.0);
    }
    fit(&mut pos, width, height, margin);
    pos
}

/// Scale and move `pos` to fill `width` × `height` less `margin`, keeping its proportions.
fn fit(pos: &mut [Point], width: f64, height: f64, margin: f64) {
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for &(x, y) in pos.iter() {
        x0 = x0.min(x);
        y0 = y0.min(y);
        x1 = x1.max(x);
        y1 = y1.max(y);
    }
    let (w, h) = ((x1 - x0).max(1e-9), (y1 - y0).max(1e-9));
    let scale = ((width - 2.0 * margin) / w).min((height - 2.0 * margin) / h);
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    for p in pos.iter_mut() {
        p.0 = width / 2.0 + (p.0 - cx) * scale;
        p.1 = height / 2.0 + (p.1 - cy) * scale;
    }
}

/// A page in the centre of `width` × `height`, its neighbours (`first` of them) on a ring
/// round it and the rest on a wider ring, each ring in the given order from the top.
pub fn rings(n: usize, first: usize, width: f64, height: f64, margin: f64) -> Vec<Point> {
    let (cx, cy) = (width / 2.0, height / 2.0);
    let outer = (width.min(height) / 2.0 - margin).max(1.0);
    let second = n.saturating_sub(1 + first);
    let inner = if second > 0 { outer * 0.55 } else { outer };
    let ring = |i: usize, count: usize, r: f64, turn: f64| {
        let a = if count == 2 {
            // Two opposite points would put the lines between them through the page.
            -std::f64::consts::FRAC_PI_2 + std::f64::consts::FRAC_PI_3 * (2.0 * i as f64 - 1.0)
        } else {
            -std::f64::consts::FRAC_PI_2
                + std::f64::consts::TAU * (i as f64 + turn) / count.max(1) as f64
        };
        (cx + r * a.cos(), cy + r * a.sin())
    };
    (0..n)
        .map(|i| match i {
            0 => (cx, cy),
            i if i <= first => ring(i - 1, first, inner, 0.0),
            i => ring(i - 1 - first, second, outer, 0.5),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_are_stable_and_inside_the_frame() {
        let edges = [(0, 1), (1, 2), (2, 0), (3, 4)];
        let a = force(6, &edges, 400.0, 300.0, 20.0);
        assert_eq!(a, force(6, &edges, 400.0, 300.0, 20.0), "no randomness");
        for &(x, y) in &a {
            assert!(
                (19.9..=380.1).contains(&x) && (19.9..=280.1).contains(&y),
                "{x},{y}"
            );
        }
        let d = |i: usize, j: usize| ((a[i].0 - a[j].0).powi(2) + (a[i].1 - a[j].1).powi(2)).sqrt();
        assert!(d(3, 4) < d(3, 0), "linked pages sit closer: {a:?}");
        let r = rings(4, 2, 200.0, 200.0, 10.0);
        assert_eq!(r[0], (100.0, 100.0));
        assert!((r[1].1 - 100.0).abs() > 1.0 && r[3].1 > 0.0);
        assert_eq!(force(0, &[], 1.0, 1.0, 0.0), Vec::new());
    }
}
