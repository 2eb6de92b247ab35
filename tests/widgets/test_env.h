// SPDX-License-Identifier: MIT
#pragma once
/// \file test_env.h
/// The private environment every window test runs in: its own cache (the demo is generated
/// there), Qt's test-mode settings, the C locale and an application name of its own, so tests
/// running in parallel never share a file.
#include <QCoreApplication>
#include <QLocale>
#include <QStandardPaths>
#include <QString>
#include <QTemporaryDir>

namespace quantscope::test {

inline void isolate(const QTemporaryDir &home, const QString &appName)
{
    qputenv("XDG_CACHE_HOME", home.filePath(QStringLiteral("cache")).toUtf8());
    QStandardPaths::setTestModeEnabled(true);
    QLocale::setDefault(QLocale::c());
    QCoreApplication::setOrganizationName(QStringLiteral("QuantscopeTest"));
    QCoreApplication::setApplicationName(appName);
}

} // namespace quantscope::test
