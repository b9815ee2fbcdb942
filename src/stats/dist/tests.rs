//! Oracle values: scipy 1.17.1 (`scipy.stats.norm.ppf`, `t.ppf`, `nct.cdf`, `nct.sf`, `ncf.cdf`,
//! `ncf.sf`, `f.isf`), computed once with numpy 2.4.6 and hard-coded here; the z values also
//! appear in `tests/data/oracles/statistics.md`, the F values in `tests/data/oracles/anova-power.md`.
use super::*;

fn close(got: f64, want: f64, tol: f64) {
    assert!(
        (got - want).abs() <= tol,
        "got {got:.17e}, want {want:.17e} (tol {tol:e})"
    );
}

#[test]
fn normal_quantiles_match_oracle() {
    close(z_quantile(0.975), 1.959963984540054, 1e-12);
    close(z_quantile(0.80), 0.8416212335729143, 1e-12);
    close(z_quantile(0.90), 1.2815515655446004, 1e-12);
    close(z_quantile(0.995), 2.5758293035489004, 1e-12);
    close(z_quantile(1e-10), -6.361340902404056, 1e-11);
    close(z_quantile(0.5), 0.0, 1e-15);
    assert!(z_quantile(0.0).is_nan() && z_quantile(1.0).is_nan());
}

#[test]
fn t_quantiles_match_scipy() {
    close(t_quantile(0.975, 19.0), 2.0930240544083087, 1e-12);
    close(t_quantile(0.975, 49.0), 2.0095752371292392, 1e-12);
    close(t_quantile(0.025, 49.0), -2.0095752371292397, 1e-12);
    close(t_quantile(0.995, 1.0), 63.656741162871526, 1e-10);
    close(t_quantile(0.975, 785.80894), 1.9629874513014436, 1e-12);
    close(t_quantile(0.9, 3.5), 1.5765766051364052, 1e-12);
    close(t_quantile(0.999, 10.0), 4.143700494046589, 1e-11);
}

#[test]
fn central_t_cdf_round_trips() {
    close(t_cdf(2.0930240544083087, 19.0), 0.975, 1e-14);
    close(t_sf(2.0930240544083087, 19.0), 0.025, 1e-15);
    close(t_cdf(0.0, 7.0), 0.5, 1e-15);
}

#[test]
fn noncentral_t_cdf_matches_scipy() {
    // (t, df, nc, scipy nct.cdf, scipy nct.sf)
    let cases: [(f64, f64, f64, f64, f64); 12] = [
        (2.0, 10.0, 1.0, 0.8076115625303752, 0.19238843746962478),
        (1.96, 100.0, 2.5, 0.2946780773103375, 0.7053219226896625),
        (-1.0, 5.0, 0.5, 0.08244409105672337, 0.9175559089432767),
        (0.5, 3.0, -1.0, 0.9242738812886191, 0.07572611871138094),
        (
            2.0096,
            49.0,
            2.1213203435596424,
            0.45237918570995966,
            0.5476208142900403,
        ),
        (1.97, 786.0, 2.8, 0.20338148188717567, 0.7966185181128242),
        (3.0, 20.0, 10.0, 1.6110153495412982e-10, 0.9999999998388984),
        (10.0, 200.0, 12.0, 0.03604210172350727, 0.9639578982764927),
        (30.0, 500.0, 40.0, 3.440767080164528e-13, 0.9999999999996559),
        (-2.0, 30.0, -3.0, 0.8375857919960602, 0.16241420800393983),
        (1.0, 1.5, 0.0, 0.7744323163616449, 0.22556768363835517),
        (50.0, 4000.0, 50.0, 0.49882545050096444, 0.5011745494990356),
    ];
    for (t, df, nc, cdf, sf) in cases {
        let got = nct_cdf(t, df, nc);
        assert!(
            (got - cdf).abs() <= 1e-11 + 1e-9 * cdf,
            "cdf({t},{df},{nc}) = {got:e}, want {cdf:e}"
        );
        let got = nct_sf(t, df, nc);
        assert!(
            (got - sf).abs() <= 1e-11 + 1e-9 * sf,
            "sf({t},{df},{nc}) = {got:e}, want {sf:e}"
        );
    }
    // Tiny lower tail with large non-centrality: relative accuracy (scipy 4.6506863313267843e-07).
    let got = nct_cdf(0.1, 2.0, 5.0);
    assert!((got / 4.6506863313267843e-07 - 1.0).abs() < 1e-8, "{got:e}");
    // Far beyond the mode: scipy sf = 1.0.
    close(nct_sf(2.0, 1000.0, 40.0), 1.0, 1e-15);
}

#[test]
fn noncentral_t_reduces_to_central_t() {
    for &(t, df) in &[(1.3, 4.0), (-0.7, 12.5), (2.5, 60.0)] {
        close(nct_cdf(t, df, 0.0), t_cdf(t, df), 1e-14);
    }
}

#[test]
fn invalid_arguments_give_nan() {
    assert!(nct_cdf(1.0, 0.0, 1.0).is_nan());
    assert!(t_quantile(1.0, 5.0).is_nan());
    assert!(t_quantile(0.5, -1.0).is_nan());
}

#[test]
fn normal_cdf_matches_scipy() {
    // scipy 1.17.1 norm.cdf
    close(norm_cdf(0.8416212335729143), 0.8, 1e-16);
    close(norm_cdf(-1.959963984540054), 0.025, 1e-16);
    close(norm_cdf(0.5), 0.6914624612740131, 1e-16);
    assert!((norm_cdf(-3.0) / 0.0013498980316300933 - 1.0).abs() < 1e-14);
    close(z_quantile(0.95), 1.6448536269514722, 1e-14);
}

#[test]
fn large_degrees_of_freedom_use_expansions() {
    // scipy 1.17.1: t.ppf(0.975, df), nct.cdf(1.96, df, 2.5), nct.cdf(-1.96, df, 2.5).
    close(t_quantile(0.975, 300000.0), 1.9599718921421825, 1e-12);
    close(t_quantile(0.975, 1e6), 1.959966356814107, 1e-12);
    close(nct_cdf(1.96, 300000.0, 2.5), 0.2945985491045656, 1e-8);
    close(nct_cdf(1.96, 1e6, 2.5), 0.29459852608281434, 1e-8);
    close(nct_cdf(-1.96, 300000.0, 2.5), 4.098286889415992e-06, 1e-10);
    // Just below the switch the series is used: scipy nct.cdf(1.96, 50000, 2.5).
    close(nct_cdf(1.96, 50000.0, 2.5), 0.2945987134837419, 1e-10);
    close(t_quantile(0.975, 5000.0), 1.9604385517065073, 1e-12);
}

#[test]
fn noncentral_f_matches_scipy() {
    // (f, dfn, dfd, nc, scipy 1.17.1 ncf.cdf, ncf.sf)
    let cases: [(f64, f64, f64, f64, f64, f64); 7] = [
        (2.0, 3.0, 20.0, 5.0, 0.40313008503458814, 0.5968699149654118),
        (1.0, 1.0, 10.0, 0.5, 0.5530460939369689, 0.44695390606303126),
        (4.5, 4.0, 95.0, 12.0, 0.6380232406778553, 0.36197675932214507),
        (0.3, 9.0, 990.0, 30.0, 1.4871077667469655e-07, 0.9999998512892232),
        (10.0, 2.0, 30.0, 2.0, 0.9927606971119912, 0.007239302888008448),
        (0.05, 6.0, 40.0, 20.0, 3.914128171762091e-08, 0.9999999608587185),
        (2.5, 5.0, 5000.0, 400.0, 1.1758312385311369e-62, 1.0),
    ];
    for (f, d1, d2, nc, cdf, sf) in cases {
        let (c, s) = (ncf_cdf(f, d1, d2, nc), ncf_sf(f, d1, d2, nc));
        assert!(
            (c - cdf).abs() <= 1e-12 + 1e-9 * cdf,
            "cdf({f},{d1},{d2},{nc}) = {c:e}, want {cdf:e}"
        );
        assert!(
            (s - sf).abs() <= 1e-12 + 1e-9 * sf,
            "sf({f},{d1},{d2},{nc}) = {s:e}, want {sf:e}"
        );
        assert!((c + s - 1.0).abs() < 1e-13);
    }
    // Tiny lower tails keep their relative accuracy.
    let c = ncf_cdf(2.5, 5.0, 5000.0, 400.0);
    assert!((c / 1.1758312385311369e-62 - 1.0).abs() < 1e-8, "{c:e}");
    // nc = 0 is the central F (scipy's ncf.sf is wrong there; f.sf(1.5, 3, 12.5) = 0.2627134231501443).
    close(ncf_sf(1.5, 3.0, 12.5, 0.0), 0.2627134231501443, 1e-14);
    close(f_sf(1.5, 3.0, 12.5), 0.2627134231501443, 1e-14);
    close(f_cdf(1.5, 3.0, 12.5), 0.7372865768498558, 1e-14);
    assert!(ncf_cdf(1.0, 0.0, 5.0, 1.0).is_nan() && ncf_sf(1.0, 2.0, 5.0, -1.0).is_nan());
    assert_eq!((ncf_cdf(0.0, 2.0, 5.0, 3.0), ncf_sf(-1.0, 2.0, 5.0, 3.0)), (0.0, 1.0));
}

#[test]
fn central_f_quantiles_match_scipy() {
    // scipy 1.17.1 f.isf(q, dfn, dfd)
    for (q, d1, d2, want) in [
        (0.05, 2.0, 57.0, 3.158842719260647),
        (0.05, 9.0, 90.0, 1.985594963730501),
        (0.01, 4.0, 20.0, 4.430690161437775),
        (0.05, 1.0, 1.0, 161.4476387975882),
        (0.2, 19.0, 1900.0, 1.2601996008971148),
        (1e-6, 3.0, 8.0, 102.68297059997138),
    ] {
        let got = f_isf(q, d1, d2);
        // statrs' incomplete beta is good to about 3e-11 relative in the far tail (q = 1e-6).
        let tol = if q >= 1e-3 { 1e-12 } else { 1e-10 };
        assert!(
            (got / want - 1.0).abs() < tol,
            "f_isf({q},{d1},{d2}) = {got}, want {want}"
        );
        close(f_sf(got, d1, d2), q, 1e-12 * q);
    }
    assert!(f_isf(0.0, 2.0, 3.0).is_nan() && f_isf(0.5, -1.0, 3.0).is_nan());
}

// Oracle: scipy 1.17.1 `scipy.stats.norm.isf` and `scipy.stats.t.isf`, computed for these tests.
// 1 − 5e-17 rounds to 1 in f64, so these upper-tail quantiles cannot come from a quantile of
// 1 − q.
#[test]
fn upper_tail_quantiles_match_scipy_isf() {
    close(z_isf(5e-9), 5.73072886823629, 1e-12);
    close(z_isf(5e-17), 8.304785425194112, 1e-12);
    close(z_isf(1e-8), 5.612001244174789, 1e-12);
    close(z_isf(0.025), 1.959963984540054, 1e-12);
    // (df, t.isf(5e-9, df), t.isf(5e-17, df), t.isf(0.025, df)), relative tolerance.
    let rows: [(f64, f64, f64, f64); 7] = [
        (1.0, 63661977.23675813, 6366197723675814.0, 12.706204736174705),
        (2.0, 9999.999924999998, 99999999.99999999, 4.302652729749464),
        (3.0, 604.1648958186104, 280429.4253211906, 3.1824463052837086),
        (5.0, 71.69350276982087, 2855.3585989201842, 2.5705818356363155),
        (10.0, 17.076428951025196, 109.38147004787308, 2.2281388519862753),
        (30.0, 7.820264654681272, 16.686221656615434, 2.042272456301238),
        (1000.0, 5.779568004003751, 8.452232443335214, 1.9623390808264085),
    ];
    for (df, a, b, c) in rows {
        close(t_isf(5e-9, df) / a, 1.0, 1e-12);
        close(t_isf(5e-17, df) / b, 1.0, 1e-12);
        close(t_isf(0.025, df) / c, 1.0, 1e-12);
        close(t_quantile(5e-9, df) / a, -1.0, 1e-12);
        close(t_isf(1.0 - 0.025, df) / c, -1.0, 1e-12);
    }
    // Real degrees of freedom.
    close(t_isf(0.3, 0.5), 1.0095258786071655, 1e-12);
    close(t_isf(1e-12, 0.5) / 1.0284911563163399e+23, 1.0, 1e-10);
    close(t_isf(1e-6, 7.5), 13.052169759815303, 1e-10);
    assert_eq!(t_isf(0.5, 4.0), 0.0);
    assert!(t_isf(0.0, 3.0).is_nan() && t_isf(1.0, 3.0).is_nan() && t_isf(0.1, 0.0).is_nan());
    assert!(z_isf(0.0).is_nan() && z_isf(1.0).is_nan());
}

// Oracle: scipy 1.17.1 `scipy.stats.nct.sf` and `nct.cdf` far in the upper tail, where
// 1 − cdf loses every digit (the critical values are t.isf(5e-9, df)).
#[test]
fn noncentral_t_far_upper_tail_matches_scipy() {
    // (t, df, nc, nct.sf(t), nct.cdf(−t)), relative tolerance.
    let rows: [(f64, f64, f64, f64, f64); 5] = [
        (
            63661977.23675814,
            1.0,
            std::f64::consts::FRAC_1_SQRT_2,
            1.063154357468477e-08,
            1.7692743201571987e-09,
        ),
        (9999.999925, 2.0, 3.0, 9.999796024917224e-08, 2.0343508279528177e-12),
        (
            7.820264654681331,
            30.0,
            3.0,
            0.00028903433113652,
            2.4352521689274953e-16,
        ),
        (50.0, 10.0, 0.0, 1.23715516465134e-13, 1.23715516465134e-13),
        (1e10, 1.0, 2.0, 1.602543722134068e-10, 6.77460052833641e-13),
    ];
    // The lower tail P(T < −t; nc) = P(T' > t; −nc) is a series of terms of both signs: its
    // absolute error is about 1e-16 (what a power sum needs), not relative.
    for (t, df, nc, sf, lower) in rows {
        close(nct_sf(t, df, nc) / sf, 1.0, 1e-9);
        close(nct_cdf(-t, df, nc), lower, 1e-9 * lower + 1e-16);
    }
    // scipy 1.17.1 nct.sf(71.6935, 5, 20); its nct.cdf(−71.6935, 5, 20) is NaN there, and
    // mpmath 1.3.0 quadrature of E[Φ(−t·√(V/ν) − nc)], V ~ χ²(ν), at 40 digits gives 1.69e-102.
    close(nct_sf(71.6935, 5.0, 20.0) / 0.00446916386348525, 1.0, 1e-9);
    close(nct_cdf(-71.6935, 5.0, 20.0), 1.6883334957764677e-102, 1e-15);
    assert_eq!(nct_sf(f64::INFINITY, 3.0, 1.0), 0.0);
    assert_eq!(nct_sf(1e200, 3.0, 1.0), 0.0);
}
