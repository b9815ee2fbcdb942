//! Oracle values: scipy 1.17.1 (`scipy.stats.norm.ppf`, `t.ppf`, `nct.cdf`, `nct.sf`), computed
//! once with numpy 2.4.6 and hard-coded here; the z values also appear in
//! `../shared/oracles/statistics.md`.
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
